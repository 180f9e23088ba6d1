import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { MessageContext } from '../../context/message-context';
import { MessageDeadLettered } from '../contracts';
import { OutboxPublisher } from '../publishing/outbox.publisher';

export type AttemptOutcome = 'failed' | 'duplicate' | 'dead' | 'crashed';

/** A delivery as a job names it: a message of the outbox, for one consumer. */
export interface DeliveryIds {
  id: string;
  consumer: string;
}

/** What a consumer takes, as the inbox checks it: its message types and its header filter. */
export interface Takes {
  types: string[];
  where: Record<string, string>;
}

/** The message as a dead letter keeps it (without its id): the shape the outbox's messages have. */
const MESSAGE_COPY = `jsonb_build_object(
  'kind', m.kind, 'type', m.type, 'aggregateId', m.aggregate_id, 'payload', m.payload,
  'correlationId', m.correlation_id, 'causationId', m.causation_id, 'headers', m.headers,
  'createdAt', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * The record of deliveries that did not take effect, kept apart from the consumer's transaction
 * (which rolled back, or had nothing to do): failed attempts, duplicates, dead letters. What it
 * records of the message (its correlation id, a dead letter's copy) is read from the outbox.
 */
@Injectable()
export class DeliveryLog {
  constructor(
    private readonly dataSource: DataSource,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly outbox: OutboxPublisher,
  ) {}

  async attempt(delivery: DeliveryIds, attempt: number, outcome: AttemptOutcome, error?: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error)
       SELECT m.id, $2, m.correlation_id, $3, $4, $5 FROM outbox.messages m WHERE m.id = $1`,
      [delivery.id, delivery.consumer, attempt, outcome, error ?? null],
    );
  }

  /**
   * Records the last failed attempt and the dead letter together, with a copy of the message
   * read from the outbox, and announces it in the message's context (unless the dead message is
   * itself one of the transport's announcements). Safe to repeat: a message has at most one open
   * dead letter per consumer. Returns the message's type, or nothing if the outbox lacks it.
   */
  deadLetter(delivery: DeliveryIds, attempt: number, error: string): Promise<string | undefined> {
    return this.txHost.withTransaction(async () => {
      const tx = this.txHost.tx;
      const [message] = await tx.query<
        Array<{ type: string; aggregate_id: string; correlation_id: string; headers: Record<string, string> }>
      >(
        `WITH m AS (
           SELECT id, type, aggregate_id, correlation_id, headers FROM outbox.messages WHERE id = $1),
         attempt AS (
           INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error)
           SELECT m.id, $2, m.correlation_id, $3, 'dead', $4 FROM m)
         SELECT type, aggregate_id, correlation_id, headers FROM m`,
        [delivery.id, delivery.consumer, attempt, error],
      );
      if (!message) return undefined;
      const deadLetterId = randomUUID();
      const inserted = await tx.query<unknown[]>(
        `INSERT INTO outbox.dead_letters
           (id, message_id, consumer, type, correlation_id, message, error, attempts, first_failed_at, last_failed_at)
         SELECT $1, m.id, $3, m.type, m.correlation_id, ${MESSAGE_COPY}, $4, $5,
                coalesce((SELECT min(at) FROM outbox.delivery_attempts
                           WHERE message_id = $2 AND consumer = $3 AND outcome IN ('failed', 'dead', 'crashed')
                             AND at > coalesce((SELECT max(resolved_at) FROM outbox.dead_letters
                                                 WHERE message_id = $2 AND consumer = $3), '-infinity')),
                         clock_timestamp()),
                clock_timestamp()
           FROM outbox.messages m WHERE m.id = $2
         ON CONFLICT (message_id, consumer) WHERE status = 'dead' DO NOTHING
         RETURNING 1`,
        [deadLetterId, delivery.id, delivery.consumer, error, attempt],
      );
      if (inserted.length === 0 || message.type.startsWith('outbox.')) return message.type;
      // In the message's context: announced to the process it belongs to (its correlation id, its headers).
      await this.cls.run({ ifNested: 'inherit' }, async () => {
        this.cls.set('correlationId', message.correlation_id);
        this.cls.set('causationId', delivery.id);
        this.cls.set('headers', message.headers);
        await this.outbox.publish(
          MessageDeadLettered,
          {
            deadLetterId,
            messageId: delivery.id,
            type: message.type,
            aggregateId: message.aggregate_id,
            consumer: delivery.consumer,
            error: error.slice(0, 2_000),
            attempts: attempt,
          },
          { aggregateId: message.aggregate_id },
        );
      });
      return message.type;
    });
  }
}
