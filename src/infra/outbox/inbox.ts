import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../context/message-context';
import { InjectedFault } from '../faults/faults';
import type { Delivery } from './message';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import type { MessageHandler } from './subscriptions';

/** One delivery, ready to be handled: its payload validated, its fault (if any) already decided. */
export interface InboxDelivery {
  delivery: Delivery;
  payload: object;
  handle: MessageHandler;
  /** An injected `consumer:<name>` fault fires on this attempt. */
  injectedFault: boolean;
}

export type InboxOutcome = 'ok' | 'duplicate';

interface Waiting {
  item: InboxDelivery;
  resolve: (outcome: InboxOutcome) => void;
  reject: (error: unknown) => void;
}

const keyOf = ({ delivery }: InboxDelivery) => `${delivery.id} ${delivery.consumer}`;

/**
 * Runs deliveries in transactions that first record (message, consumer) in the inbox: a delivery
 * whose row already exists is a duplicate and does nothing; otherwise the handler's writes, the
 * messages it publishes and the inbox row commit together.
 *
 * Deliveries that arrive together share one transaction (group commit): one round trip records
 * all their inbox rows and one commit makes all their effects durable, which is what lets a
 * consumer keep up with the queue. If any of them fails, the whole transaction rolls back and
 * each delivery runs again in a transaction of its own, so that only the failing one fails.
 */
@Injectable()
export class Inbox {
  private waiting: Waiting[] = [];
  private flushScheduled = false;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  handle(item: InboxDelivery): Promise<InboxOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length >= this.config.consumerBatchSize) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Everything that arrives in this turn of the event loop goes in the same transaction.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.waiting.splice(0, this.config.consumerBatchSize);
    if (this.waiting.length > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length > 0) void this.run(batch);
  }

  private async run(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const outcomes = await this.inOneTransaction(batch.map((w) => w.item));
        batch.forEach((waiting, index) => waiting.resolve(outcomes[index]));
        return;
      } catch {
        // Fall through: each on its own, so that one failure does not fail the others.
      }
    }
    await Promise.all(
      batch.map((waiting) => this.inOneTransaction([waiting.item]).then(([o]) => waiting.resolve(o), waiting.reject)),
    );
  }

  private inOneTransaction(items: InboxDelivery[]): Promise<InboxOutcome[]> {
    return this.txHost.withTransaction(async () => {
      const recorded = await this.record(items);
      const outcomes: InboxOutcome[] = [];
      for (const item of items) {
        const fresh = recorded.delete(keyOf(item)); // a second copy in the same batch is a duplicate too
        if (fresh) await this.runHandler(item);
        outcomes.push(fresh ? 'ok' : 'duplicate');
      }
      return outcomes;
    });
  }

  /** Inserts the inbox rows in one statement; returns the keys of those that were not there yet. */
  private async record(items: InboxDelivery[]): Promise<Set<string>> {
    const rows = await this.txHost.tx.query<Array<{ message_id: string; consumer: string }>>(
      `INSERT INTO outbox.inbox (message_id, consumer, correlation_id, attempt)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[])
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

  /** The handler runs in its message's context: what it publishes is correlated and caused by it. */
  private runHandler({ delivery, payload, handle, injectedFault }: InboxDelivery): Promise<unknown> {
    return this.cls.run({ ifNested: 'inherit' }, () => {
      this.cls.set('correlationId', delivery.correlationId);
      this.cls.set('causationId', delivery.id);
      this.cls.set('headers', delivery.headers);
      if (injectedFault) throw new InjectedFault(`consumer:${delivery.consumer}`);
      return handle(payload, delivery);
    });
  }
}
