import { randomUUID } from 'node:crypto';
import { ClsServiceManager, ClsStore } from 'nestjs-cls';
import type { DeliveryHooks } from '../hooks/hooks';

export const CORRELATION_HEADER = 'x-correlation-id';

/** What travels with every request, outbox row, job and log line of one business process. */
export interface MessageContext extends ClsStore {
  /** Ties together everything that one checkout caused. */
  correlationId: string;
  /** The message that caused the current unit of work, when it is a consumer. */
  causationId?: string;
  /**
   * Headers that every message of the unit of work carries on, as the correlation id does (for
   * example which coordination style runs a checkout).
   */
  headers?: Record<string, string>;
  /** The turning points of the delivery being handled (see Inbox), which its steps' hooks may share. */
  deliveryHooks?: DeliveryHooks;
}

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's id is kept when it is a plain token; anything else (or nothing) gets a new one. */
export function correlationIdFrom(header: unknown): string {
  const given = Array.isArray(header) ? header[0] : header;
  return typeof given === 'string' && ACCEPTABLE_ID.test(given) ? given : randomUUID();
}

/** The ids of the current context, for log lines; empty outside any context. */
export function currentContextIds(): Partial<Pick<MessageContext, 'correlationId' | 'causationId'>> {
  const cls = ClsServiceManager.getClsService<MessageContext>();
  if (!cls.isActive()) return {};
  const correlationId = cls.get('correlationId');
  const causationId = cls.get('causationId');
  return causationId ? { correlationId, causationId } : correlationId ? { correlationId } : {};
}
