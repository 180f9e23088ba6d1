import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MessageDeadLettered } from './contracts';
import { OutboxPublisher } from './outbox.publisher';
import type { OutboxJob } from './outbox.queues';

export type AttemptOutcome = 'failed' | 'duplicate' | 'dead' | 'crashed';

/**
 * The record of deliveries that did not take effect, kept apart from the consumer's transaction
 * (which rolled back, or had nothing to do): failed attempts, duplicates, dead letters.
 */
@Injectable()
export class DeliveryLog {
  constructor(
    private readonly dataSource: DataSource,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxPublisher,
  ) {}

  async attempt(job: OutboxJob, attempt: number, outcome: AttemptOutcome, error?: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [job.id, job.consumer, job.correlationId, attempt, outcome, error ?? null],
    );
  }

  /**
   * Records deliveries that ended with their worker dead (BullMQ saw them stall), and returns how
   * many there have been for this (message, consumer) since its last dead letter was resolved.
   */
  async crashed(job: OutboxJob, attempt: number, crashes: number): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ crashes: number }>>(
      `WITH recorded AS (
         INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error)
         SELECT $1, $2, $3, $4, 'crashed', 'the worker died (or lost the job) while handling it'
           FROM generate_series(1, $5)
         RETURNING 1)
       SELECT $5 + count(*)::int AS crashes FROM outbox.delivery_attempts
        WHERE message_id = $1 AND consumer = $2 AND outcome = 'crashed'
          AND at > coalesce((SELECT max(resolved_at) FROM outbox.dead_letters WHERE message_id = $1 AND consumer = $2), '-infinity')`,
      [job.id, job.consumer, job.correlationId, attempt, crashes],
    );
    return row.crashes;
  }

  /**
   * Records the last failed attempt and the dead letter together, and announces it (unless the
   * dead message is itself one of the transport's announcements). Safe to repeat: a message has
   * at most one open dead letter per consumer.
   */
  deadLetter(job: OutboxJob, attempt: number, error: string): Promise<void> {
    return this.txHost.withTransaction(async () => {
      const tx = this.txHost.tx;
      await tx.query(
        `INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error)
         VALUES ($1, $2, $3, $4, 'dead', $5)`,
        [job.id, job.consumer, job.correlationId, attempt, error],
      );
      const { consumer, stallsCounted: _stalls, ...message } = job;
      const deadLetterId = randomUUID();
      const inserted = await tx.query<unknown[]>(
        `INSERT INTO outbox.dead_letters
           (id, message_id, consumer, type, correlation_id, message, error, attempts, first_failed_at, last_failed_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, coalesce(min(at), clock_timestamp()), clock_timestamp()
           FROM outbox.delivery_attempts
          WHERE message_id = $2 AND consumer = $3 AND outcome IN ('failed', 'dead', 'crashed')
            AND at > coalesce((SELECT max(resolved_at) FROM outbox.dead_letters WHERE message_id = $2 AND consumer = $3), '-infinity')
         ON CONFLICT (message_id, consumer) WHERE status = 'dead' DO NOTHING
         RETURNING 1`,
        [deadLetterId, job.id, consumer, job.type, job.correlationId, JSON.stringify(message), error, attempt],
      );
      if (inserted.length === 0 || job.type.startsWith('outbox.')) return;
      await this.outbox.publish(
        MessageDeadLettered,
        {
          deadLetterId,
          messageId: job.id,
          type: job.type,
          aggregateId: job.aggregateId,
          consumer,
          error: error.slice(0, 2_000),
          attempts: attempt,
        },
        { aggregateId: job.aggregateId },
      );
    });
  }
}
