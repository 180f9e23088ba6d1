import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { OutboxJob } from './outbox.queues';

export type AttemptOutcome = 'failed' | 'duplicate' | 'dead';

/**
 * The record of deliveries that did not take effect, kept apart from the consumer's transaction
 * (which rolled back, or had nothing to do): failed attempts, duplicates, dead letters.
 */
@Injectable()
export class DeliveryLog {
  constructor(private readonly dataSource: DataSource) {}

  async attempt(job: OutboxJob, attempt: number, outcome: AttemptOutcome, error?: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [job.id, job.consumer, job.correlationId, attempt, outcome, error ?? null],
    );
  }

  /**
   * Records the last failed attempt and the dead letter together. Safe to repeat: a message has at
   * most one open dead letter per consumer.
   */
  async deadLetter(job: OutboxJob, attempt: number, error: string): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error)
         VALUES ($1, $2, $3, $4, 'dead', $5)`,
        [job.id, job.consumer, job.correlationId, attempt, error],
      );
      const { consumer, ...message } = job;
      await tx.query(
        `INSERT INTO outbox.dead_letters
           (id, message_id, consumer, type, correlation_id, message, error, attempts, first_failed_at, last_failed_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, coalesce(min(at), clock_timestamp()), clock_timestamp()
           FROM outbox.delivery_attempts
          WHERE message_id = $2 AND consumer = $3 AND outcome IN ('failed', 'dead')
            AND at > coalesce((SELECT max(resolved_at) FROM outbox.dead_letters WHERE message_id = $2 AND consumer = $3), '-infinity')
         ON CONFLICT (message_id, consumer) WHERE status = 'dead' DO NOTHING`,
        [randomUUID(), job.id, consumer, job.type, job.correlationId, JSON.stringify(message), error, attempt],
      );
    });
  }
}
