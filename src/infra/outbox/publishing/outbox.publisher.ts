import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import { randomUUID } from 'node:crypto';
import type { MessageContext } from '../../context/message-context';
import { sendWithNext } from '../../database/one-write';
import { traceCreate } from '../../tracing/message.tracing';
import { type MessageContract, parsePayload } from '../message';
import { LocalRoutes } from '../local-routes';
import { OutboxCommits } from './outbox-commits';

/** Publishing without a transaction would be a dual write: it is refused instead. */
export class PublishOutsideTransactionError extends Error {
  constructor(type: string) {
    super(`${type} was published outside a transaction: publish inside the transaction of the change it announces`);
    this.name = 'PublishOutsideTransactionError';
  }
}

export interface PublishOptions {
  /** The entity the message is about (a checkout, a payment). */
  aggregateId: string;
  headers?: Record<string, string>;
}

/**
 * Writes events and commands to the outbox, in the caller's transaction: they exist if and only
 * if the change they announce was committed. They are delivered at least once: by this process
 * right after the commit when every consumer of a message runs here (the local bus), otherwise by
 * the relay through the queues.
 */
@Injectable()
export class OutboxPublisher {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly commits: OutboxCommits,
    private readonly local: LocalRoutes,
  ) {}

  /**
   * Returns the new message's id. Its correlation id, causation id and inherited headers come from
   * the current context.
   */
  async publish<P extends object>(contract: MessageContract<P>, payload: P, options: PublishOptions): Promise<string> {
    if (!this.txHost.isTransactionActive()) throw new PublishOutsideTransactionError(contract.type);
    parsePayload(contract, payload);
    const id = randomUUID();
    // A transaction always runs in a context; work started outside any request gets its own id.
    if (!this.cls.get('correlationId')) this.cls.set('correlationId', randomUUID());
    const correlationId = this.cls.get('correlationId');
    const headers = traceCreate({
      id,
      type: contract.type,
      correlationId,
      payload,
      headers: { ...this.cls.get('headers'), ...options.headers },
    });
    const { tx } = this.txHost;
    // Delivered here after the commit: written published, for no relay to take, and claimed.
    const claimed = this.commits.canFollow(tx) ? this.local.claims(contract.type, headers) : undefined;
    const written = JSON.stringify(payload);
    const causationId = this.cls.get('causationId') ?? null;
    // Sent with the transaction's next statement or its COMMIT: one round trip less a message.
    await sendWithNext(
      tx,
      `INSERT INTO outbox.messages
         (id, kind, type, aggregate_id, payload, correlation_id, causation_id, headers, claimed_by, published_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $9::uuid IS NULL THEN NULL ELSE clock_timestamp() END)`,
      [
        id,
        contract.kind,
        contract.type,
        options.aggregateId,
        written,
        correlationId,
        causationId,
        JSON.stringify(headers),
        claimed ? this.local.processId : null,
      ],
    );
    // A claimed message goes to its consumers as they would read it back: its payload through JSON, as jsonb keeps it.
    this.commits.mark(
      tx,
      claimed && {
        id,
        kind: contract.kind,
        type: contract.type,
        aggregateId: options.aggregateId,
        payload: JSON.parse(written) as unknown,
        correlationId,
        causationId,
        headers,
        createdAt: new Date().toISOString(),
        subscriptions: claimed,
      },
    );
    return id;
  }
}
