import { setTimeout as sleep } from 'node:timers/promises';
import { callOutside } from '../../../infra/failure-source';
import type { FiledAuthorization } from '../domain/filed-authorizations';
import {
  type AuthorizationRequest,
  authorizationsIn,
  CardGateway,
  type FiledOperation,
  type GatewayResponse,
  type VoidTarget,
} from './card-gateway';
import type { CardGatewayConfig } from './card-gateway.config';

/** The gateway answered with a status that is not a decision; its body is kept for the record. */
export class GatewayHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'GatewayHttpError';
  }
}

/** Statuses by which a gateway says the request did not reach its work (or reached it under the same key). */
const RETRIED_STATUSES = new Set([502, 503]);

type Sent = { kind: 'answered'; text: string } | { kind: 'retry'; error: Error };

/**
 * With CARD_GATEWAY_URL set: the card gateway service, over HTTP. Each call sends its idempotency
 * key in the Idempotency-Key header and waits at most CARD_GATEWAY_TIMEOUT_MS for each request.
 * A 502, a 503 or a refused connection is sent again under the same key, a few times with a
 * doubling pause: the gateway says it did not take the request in, or answers the same key with
 * the same response. A timeout is not: the effect may have happened and only its answer be late,
 * so it surfaces, as every other failure, as the gateway's (callOutside, ADR 0093), and the
 * delivery's next attempt asks again under the same key. A 4xx is never sent again. The look-up
 * of a reference is a GET, sent again on the same statuses; unanswered, it fails as a call does.
 */
export class HttpCardGateway extends CardGateway {
  readonly voidsByKey: boolean;

  constructor(private readonly config: CardGatewayConfig & { url: string }) {
    super();
    this.voidsByKey = config.voidsByKey;
  }

  authorize(key: string, request: AuthorizationRequest): Promise<GatewayResponse> {
    return this.call('authorizations', key, request);
  }

  capture(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.call('captures', key, { authorizationId });
  }

  void(key: string, target: VoidTarget): Promise<GatewayResponse> {
    return this.call('voids', key, target);
  }

  refund(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.call('refunds', key, { authorizationId });
  }

  async authorizationsFiledUnder(reference: string): Promise<FiledAuthorization[]> {
    const path = `references/${encodeURIComponent(reference)}/operations`;
    const text = await this.exchange(path, '(a look-up)', { method: 'GET' });
    return authorizationsIn(listingIn(text));
  }

  private async call(path: string, key: string, body: object): Promise<GatewayResponse> {
    const text = await this.exchange(path, key, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    return callOutside('card-gateway', async () => decisionIn(text));
  }

  /** One request, sent again on a 502, a 503 or a refused connection: the body of its answer. */
  private exchange(path: string, what: string, init: RequestInit): Promise<string> {
    return callOutside('card-gateway', async () => {
      for (let attempt = 1; ; attempt++) {
        const sent = await this.send(path, what, init);
        if (sent.kind === 'answered') return sent.text;
        if (attempt >= this.config.attempts) throw sent.error;
        await sleep(this.config.backoffMs * 2 ** (attempt - 1));
      }
    });
  }

  private async send(path: string, what: string, init: RequestInit): Promise<Sent> {
    const timeoutMs = this.config.timeoutMs;
    try {
      const answer = await fetch(`${this.config.url}/v1/${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      const text = await answer.text();
      if (RETRIED_STATUSES.has(answer.status))
        return { kind: 'retry', error: new GatewayHttpError(answer.status, text) };
      if (!answer.ok) throw new GatewayHttpError(answer.status, text);
      return { kind: 'answered', text };
    } catch (error) {
      if (connectionRefused(error)) {
        return { kind: 'retry', error: new Error(`connection refused at ${this.config.url}`, { cause: error }) };
      }
      if ((error as Error).name === 'TimeoutError') {
        // A POST's effect may have happened; a GET's answer is unknown, which is not "none".
        const unknown = init.method === 'GET' ? 'what it holds is not known' : 'it may still have taken effect';
        throw new Error(`no answer within ${timeoutMs} ms to ${init.method} ${path} ${what}: ${unknown}`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

/** fetch's "fetch failed", caused by a refused connection (or by each address's, when it tried several). */
function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string; errors?: Array<{ code?: string }> } } | undefined)?.cause;
  if (!cause) return false;
  return cause.code === 'ECONNREFUSED' || (cause.errors ?? []).some((each) => each.code === 'ECONNREFUSED');
}

/** The gateway's decision, checked: a body that is not one is the gateway's failure, not a decline. */
function decisionIn(text: string): GatewayResponse {
  const body = JSON.parse(text) as Partial<{ approved: unknown; authorizationId: unknown; reason: unknown }>;
  if (body.approved === true && typeof body.authorizationId === 'string') {
    return { approved: true, authorizationId: body.authorizationId };
  }
  if (body.approved === false && typeof body.reason === 'string') return { approved: false, reason: body.reason };
  throw new Error(`answered a body that is no decision: ${text.slice(0, 300)}`);
}

/** The gateway's listing of a reference, checked: a body that is not one is the gateway's failure, never "none". */
function listingIn(text: string): FiledOperation[] {
  const body = JSON.parse(text) as { operations?: unknown };
  if (!Array.isArray(body.operations)) throw new Error(`answered a body that is no listing: ${text.slice(0, 300)}`);
  return body.operations.map((each: Partial<Record<keyof FiledOperation, unknown>>) => {
    if (typeof each.operation !== 'string' || typeof each.approved !== 'boolean') {
      throw new Error(`answered a listing with an operation it cannot read: ${JSON.stringify(each).slice(0, 300)}`);
    }
    const authorizationId = typeof each.authorizationId === 'string' ? each.authorizationId : null;
    return { operation: each.operation, approved: each.approved, authorizationId };
  });
}
