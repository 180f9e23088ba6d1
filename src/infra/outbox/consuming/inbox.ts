import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../context/message-context';
import type { DeliveryHooks } from '../../hooks/hooks';
import { continueTrace, traceInboxBatch } from '../../tracing/message.tracing';
import { AnsweredFailure } from './answered-failure';
import { type Delivery, type OutboxMessage, parsePayload } from '../message';
import { OutboxMetrics } from '../outbox.metrics';
import { answerWithNext, sendWithNext } from '../../database/one-write';
import { isTimeout } from '../../database/timeouts';
import { END_RUNS } from './delivery-runs';
import {
  inAggregateOrder,
  type InboxOutcome,
  outcomesOf,
  type Read,
  readsOf,
  RECORD,
  type RecordRow,
  recordParameters,
} from './inbox-record';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import type { Subscription } from './subscriptions';

export type { InboxOutcome } from './inbox-record';

/** The consumer as this process has it: what it takes, and how it handles it. */
export type InboxConsumer = Pick<Subscription, 'queue' | 'exclusive' | 'dedup' | 'contracts' | 'where' | 'handle'>;

/**
 * One delivery, as a job names it (a message id and a consumer): the inbox reads the message's
 * type, payload and headers from the outbox, in the statement that records the delivery.
 */
export interface InboxDelivery {
  /** The message's id in this deployment's outbox. */
  id: string;
  consumer: string;
  /** 1 on the first delivery to this consumer. */
  attempt: number;
  /** The handler of an `exclusive` consumer always runs alone. */
  subscription: InboxConsumer;
  /**
   * Which deliveries that arrive together may share its transaction: those of its queue, unless it
   * names another group (the local bus's deliveries are one, whatever their queue: ADR 0098).
   */
  group?: string;
  /** Runs in its own transaction, as an `exclusive` consumer's deliveries do (one suspected of killing its worker). */
  alone?: boolean;
  /**
   * The delivery's turning points (src/infra/hooks), the same set while it is handled again alone
   * after its shared transaction failed. Without them, nothing steps in.
   */
  hooks?: DeliveryHooks;
  /** The run recorded for a delivery that runs alone (DeliveryRuns): its transaction ends it. */
  runId?: string;
  /**
   * The message, when whoever delivers it has it (the local bus: the transaction that wrote it).
   * A consumer that takes repeats (`dedup: 'handler'`) then runs without waiting for its inbox
   * record, which rides with the handler's first statement (ADR 0102).
   */
  message?: OutboxMessage;
  /** The trace context of the delivery's span, which the inbox's transaction links to. */
  traceContext?: Record<string, string>;
  /**
   * Told the message each time the inbox reads it; answers the headers the handler runs with
   * (the message's, carrying the delivery's span). Without it, the message's own.
   */
  onRead?: (message: OutboxMessage) => Record<string, string>;
}

interface Waiting {
  item: InboxDelivery;
  resolve: (outcome: InboxOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs deliveries in transactions that first record (message, consumer) in the inbox, reading the
 * message from the outbox in the same statement (a job names it, and Postgres says what it is): a
 * delivery whose consumer does not take the message is refused, one whose row already exists is a
 * duplicate and does nothing (unless its consumer dedups on its own,
 * `dedup: 'handler'`: then the handler runs anyway, and the row is only the receipt of the first);
 * otherwise the handler's writes, the messages it publishes and the inbox row commit together.
 * Such a consumer, handed its message (the local bus), does not wait for the record: it rides with
 * the handler's first statement.
 *
 * Deliveries of one queue that arrive together share one transaction (group commit): one round
 * trip records all their inbox rows and one commit makes all their effects durable, which is what
 * lets a consumer keep up with its queue. The local bus's deliveries are one group, whatever their
 * queue: the consumers of one message (and of the messages committed with it) share it. If one of them fails, the transaction rolls back and
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
    if (item.subscription.exclusive || item.alone) {
      return continueTrace(item.traceContext, () => this.alone(item));
    }
    const group = item.group ?? item.subscription.queue;
    return new Promise((resolve, reject) => {
      const queued = this.waiting.get(group) ?? [];
      queued.push({ item, resolve, reject });
      this.waiting.set(group, queued);
      if (queued.length >= this.config.consumerBatchSize) this.flush(group);
      // Everything of this group that arrives in this turn of the event loop goes in the same transaction.
      else if (queued.length === 1) setImmediate(() => this.flush(group));
    });
  }

  private flush(group: string): void {
    const queued = this.waiting.get(group) ?? [];
    if (queued.length === 0) return;
    const batch = queued.splice(0, this.config.consumerBatchSize);
    if (queued.length > 0) setImmediate(() => this.flush(group));
    void traceInboxBatch(
      group,
      batch.map((waiting) => waiting.item.traceContext ?? {}),
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
      const [outcome] = await this.inOneTransaction([
        { ...item, subscription: { ...item.subscription, handle: error.answer } },
      ]);
      return outcome;
    }
  }

  /**
   * Bounded (see isTimeout): a delivery stuck behind a lock fails after the lock timeout,
   * its batch runs again without it, and it is retried like any failure.
   */
  private inOneTransaction(items: InboxDelivery[]): Promise<InboxOutcome[]> {
    // Consumers that take repeats, their messages at hand: they need nothing the record says before
    // they run, and it rides with their first statement.
    const withNext = items.every((item) => item.message && item.subscription.dedup === 'handler');
    let recorded: Promise<Read[]> | undefined;
    return this.txHost
      .withTransaction(async () => {
        const runIds = items.flatMap((item) => (item.runId ? [item.runId] : []));
        // Rides with the record statement: a run ends with the transaction that handles it, or not at all.
        if (runIds.length > 0) await sendWithNext(this.txHost.tx, END_RUNS, [runIds]);
        if (withNext) ({ reads: recorded } = await this.recordWithNext(items));
        const reads = withNext
          ? items.map((item) => ({ message: item.message, routed: true, fresh: true }))
          : await this.record(items);
        const outcomes = outcomesOf(items, reads);
        for (const index of inAggregateOrder(reads)) {
          const [item, { message }, outcome] = [items[index], reads[index], outcomes[index]];
          if (!message) continue;
          const headers = item.onRead?.(message) ?? message.headers;
          if (outcome === 'ok' || (outcome === 'duplicate' && item.subscription.dedup === 'handler')) {
            await this.runHandler(item, message, headers);
          }
        }
        return outcomes;
      })
      .then(async (outcomes) => (recorded ? outcomesOf(items, await recorded) : outcomes))
      .catch((error: unknown) => {
        if (isTimeout(error)) this.metrics.timeouts.inc({ stage: 'consumer' });
        throw error;
      });
  }

  /**
   * In one statement: reads each delivery's message from the outbox, and inserts the inbox rows
   * of those whose consumer takes the message (its type, its headers). Nothing that the job said
   * besides the ids is used: Redis carries ids, Postgres the truth. Not recorded: a message that
   * this outbox lacks (another deployment's job), one that the consumer does not take (a forged
   * job), and a delivery that is dead-lettered (a copy pushed again by a sweep that read just
   * before it was), which is then not handled until redriven.
   */
  private async record(items: InboxDelivery[]): Promise<Read[]> {
    return readsOf(items, await this.txHost.tx.query<RecordRow[]>(RECORD, recordParameters(items)));
  }

  /**
   * As record, the statement riding with the transaction's next one (the handler's first): what
   * it said comes with that one's answer, and its failure fails that one.
   */
  private async recordWithNext(items: InboxDelivery[]): Promise<{ reads: Promise<Read[]> }> {
    const { answer } = await answerWithNext<RecordRow>(this.txHost.tx, RECORD, recordParameters(items));
    const reads = answer.then((rows) => readsOf(items, rows));
    reads.catch(() => undefined); // the transaction's caller hears of its failure
    return { reads };
  }

  /**
   * The handler runs in its message's context: what it publishes is correlated and caused by it.
   * Its payload is validated against its contract first: one that breaks it fails the delivery,
   * hopelessly (InvalidPayloadError).
   */
  private runHandler(item: InboxDelivery, message: OutboxMessage, headers: Record<string, string>): Promise<unknown> {
    const { subscription, hooks } = item;
    const { payload, ...rest } = message;
    const delivery: Delivery = { ...rest, headers, consumer: item.consumer, attempt: item.attempt };
    return this.cls.run({ ifNested: 'inherit' }, async () => {
      this.cls.set('correlationId', delivery.correlationId);
      this.cls.set('causationId', delivery.id);
      this.cls.set('headers', delivery.headers);
      this.cls.set('deliveryHooks', hooks);
      hooks?.beforeHandler();
      const contract = subscription.contracts.find((candidate) => candidate.type === message.type)!;
      const parsed = parsePayload(contract, payload);
      await continueTrace(delivery.headers, () => subscription.handle(parsed, delivery));
      await hooks?.beforeCommit();
    });
  }
}
