import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../context/message-context';
import { crashNow, InjectedFault } from '../faults/faults';
import { continueTrace, traceInboxBatch } from '../tracing/message.tracing';
import { AnsweredFailure } from './answered-failure';
import type { Delivery } from './message';
import { OutboxMetrics } from './outbox.metrics';
import { isTimeout } from '../database/timeouts';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import type { Dedup, MessageHandler } from './subscriptions';

/** One delivery, ready to be handled: its payload validated, its consumer fault (if any) decided. */
export interface InboxDelivery {
  delivery: Delivery;
  payload: object;
  handle: MessageHandler;
  /** The consumer's queue: only deliveries of one queue share a transaction. */
  queue: string;
  /** The handler reaches outside the database: it always runs in a transaction of its own. */
  exclusive: boolean;
  /** `handler`: a duplicate reaches the handler too (the consumer is idempotent on its own). */
  dedup?: Dedup;
  /** An injected `consumer:<name>` fault fires on this attempt. */
  injectedFault: boolean;
  /** An injected `consumer:<name>:before-commit` crash fires on this attempt, once the handler returned. */
  crashBeforeCommit?: boolean;
  /**
   * Fault decisions taken while handling this delivery attempt, kept so that running it again
   * (alone, after its shared transaction failed) takes the same ones.
   */
  faultDecisions: Map<string, string | undefined>;
}

/** `foreign`: the message is not in this deployment's outbox (a job of another deployment). */
export type InboxOutcome = 'ok' | 'duplicate' | 'foreign';

interface Waiting {
  item: InboxDelivery;
  resolve: (outcome: InboxOutcome) => void;
  reject: (error: unknown) => void;
}

const keyOf = ({ delivery }: InboxDelivery) => `${delivery.id} ${delivery.consumer}`;

/**
 * The positions of a batch's deliveries, by aggregate, those of one aggregate in the order they
 * came: two batches that lock the same rows (a read model's, keyed by the aggregate) then take
 * them in the same order, and wait for each other rather than deadlock.
 */
const inAggregateOrder = (items: InboxDelivery[]): number[] =>
  items
    .map((_, index) => index)
    .sort((a, b) => {
      const [x, y] = [items[a].delivery.aggregateId, items[b].delivery.aggregateId];
      return x < y ? -1 : x > y ? 1 : a - b;
    });

/**
 * Runs deliveries in transactions that first record (message, consumer) in the inbox: a delivery
 * whose row already exists is a duplicate and does nothing (unless its consumer dedups on its own,
 * `dedup: 'handler'`: then the handler runs anyway, and the row is only the receipt of the first);
 * otherwise the handler's writes, the messages it publishes and the inbox row commit together.
 *
 * Deliveries of one queue that arrive together share one transaction (group commit): one round
 * trip records all their inbox rows and one commit makes all their effects durable, which is what
 * lets a consumer keep up with its queue. If one of them fails, the transaction rolls back and
 * each runs again alone, one after the other, so that only the failing one fails. Running again
 * is harmless for effects that live in the database (they were rolled back), not for one that
 * left it: a consumer that sends an email is `exclusive`, and never shares. A handler whose work
 * failed but is answered (AnsweredFailure) gets its answer committed alone, after its own
 * transaction rolled back.
 */
@Injectable()
export class Inbox {
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly metrics: OutboxMetrics,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  handle(item: InboxDelivery): Promise<InboxOutcome> {
    if (item.exclusive) {
      return continueTrace(item.delivery.headers, () => this.alone(item));
    }
    return new Promise((resolve, reject) => {
      const queued = this.waiting.get(item.queue) ?? [];
      queued.push({ item, resolve, reject });
      this.waiting.set(item.queue, queued);
      if (queued.length >= this.config.consumerBatchSize) this.flush(item.queue);
      // Everything of this queue that arrives in this turn of the event loop goes in the same transaction.
      else if (queued.length === 1) setImmediate(() => this.flush(item.queue));
    });
  }

  private flush(queue: string): void {
    const queued = this.waiting.get(queue) ?? [];
    if (queued.length === 0) return;
    const batch = queued.splice(0, this.config.consumerBatchSize);
    if (queued.length > 0) setImmediate(() => this.flush(queue));
    void traceInboxBatch(
      queue,
      batch.map((waiting) => waiting.item.delivery.headers),
      () => this.run(batch),
    );
  }

  private async run(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const outcomes = await this.inOneTransaction(batch.map((w) => w.item));
        batch.forEach((waiting, index) => waiting.resolve(outcomes[index]));
        return;
      } catch {
        // Each on its own below, so that one failure does not fail the others.
      }
    }
    // One after the other: a shared transaction that failed does not turn into many at once.
    for (const waiting of batch) {
      await this.alone(waiting.item).then(waiting.resolve, waiting.reject);
    }
  }

  /**
   * One delivery in its own transaction. If its handler failed with an answer (AnsweredFailure),
   * what it wrote is gone with that transaction, and a second one commits the answer with the
   * inbox row, without running the handler again.
   */
  private async alone(item: InboxDelivery): Promise<InboxOutcome> {
    try {
      const [outcome] = await this.inOneTransaction([item]);
      return outcome;
    } catch (error) {
      if (!(error instanceof AnsweredFailure)) throw error;
      const [outcome] = await this.inOneTransaction([{ ...item, handle: error.answer }]);
      return outcome;
    }
  }

  /**
   * Bounded (see isTimeout): a delivery stuck behind a lock fails after the lock timeout,
   * its batch runs again without it, and it is retried like any failure.
   */
  private inOneTransaction(items: InboxDelivery[]): Promise<InboxOutcome[]> {
    return this.txHost
      .withTransaction(async () => {
        const recorded = await this.record(items);
        const foreign = await this.foreign(items.filter((item) => !recorded.has(keyOf(item))));
        const outcomes: InboxOutcome[] = [];
        for (const index of inAggregateOrder(items)) {
          const item = items[index];
          const fresh = recorded.delete(keyOf(item)); // a second copy in the same batch is a duplicate too
          const outcome = fresh ? 'ok' : foreign.has(item.delivery.id) ? 'foreign' : 'duplicate';
          if (outcome === 'ok' || (outcome === 'duplicate' && item.dedup === 'handler')) await this.runHandler(item);
          outcomes[index] = outcome;
        }
        return outcomes;
      })
      .catch((error: unknown) => {
        if (isTimeout(error)) this.metrics.timeouts.inc({ stage: 'consumer' });
        throw error;
      });
  }

  /**
   * Inserts the inbox rows in one statement; returns the keys of those that were not there yet.
   * Only for messages of this deployment's outbox: a job that names another message is refused.
   * A delivery that is dead-lettered is not recorded either, so it is not handled until redriven.
   */
  private async record(items: InboxDelivery[]): Promise<Set<string>> {
    const rows = await this.txHost.tx.query<Array<{ message_id: string; consumer: string }>>(
      `INSERT INTO outbox.inbox (message_id, consumer, correlation_id, attempt)
       SELECT d.* FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[]) AS d(message_id, consumer, correlation_id, attempt)
        WHERE EXISTS (SELECT 1 FROM outbox.messages m WHERE m.id = d.message_id)
          -- A copy pushed again by a sweep that read just before the delivery was dead-lettered.
          AND NOT EXISTS (SELECT 1 FROM outbox.dead_letters l
                           WHERE l.message_id = d.message_id AND l.consumer = d.consumer AND l.status = 'dead')
       ON CONFLICT DO NOTHING
       RETURNING message_id, consumer`,
      [
        items.map((i) => i.delivery.id),
        items.map((i) => i.delivery.consumer),
        items.map((i) => i.delivery.correlationId),
        items.map((i) => i.delivery.attempt),
      ],
    );
    return new Set(rows.map((row) => `${row.message_id} ${row.consumer}`));
  }

  /** The ids, among those not recorded, of messages that this outbox does not have. */
  private async foreign(unrecorded: InboxDelivery[]): Promise<Set<string>> {
    if (unrecorded.length === 0) return new Set();
    const ids = [...new Set(unrecorded.map((item) => item.delivery.id))];
    const known = await this.txHost.tx.query<Array<{ id: string }>>(
      `SELECT id FROM outbox.messages WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const present = new Set(known.map((row) => row.id));
    return new Set(ids.filter((id) => !present.has(id)));
  }

  /** The handler runs in its message's context: what it publishes is correlated and caused by it. */
  private runHandler(item: InboxDelivery): Promise<unknown> {
    const { delivery, payload, handle, injectedFault, faultDecisions } = item;
    return this.cls.run({ ifNested: 'inherit' }, async () => {
      this.cls.set('correlationId', delivery.correlationId);
      this.cls.set('causationId', delivery.id);
      this.cls.set('headers', delivery.headers);
      this.cls.set('faultDecisions', faultDecisions);
      if (injectedFault) throw new InjectedFault(`consumer:${delivery.consumer}`);
      await continueTrace(delivery.headers, () => handle(payload, delivery));
      if (item.crashBeforeCommit) crashNow(`consumer:${delivery.consumer}:before-commit`);
    });
  }
}
