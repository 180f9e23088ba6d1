import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Delivery } from '../../../src/infra/outbox';
import type { ProcessedMessages as Dedup } from './exercise';

/**
 * Exercise 04, the reference answer. What was processed is a message *by a consumer*: the key is
 * the pair, so each consumer of a message is deduplicated on its own and never silenced by
 * another. The project's inbox (outbox.inbox) is keyed the same way, (message_id, consumer).
 */
export const schema = `
  CREATE TABLE ex04.processed_messages (
    message_id uuid NOT NULL,
    consumer text NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (message_id, consumer)
  )
`;

@Injectable()
export class ProcessedMessages implements Dedup {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async exists(delivery: Delivery): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      `SELECT 1 FROM ex04.processed_messages WHERE message_id = $1 AND consumer = $2`,
      [delivery.id, delivery.consumer],
    );
    return rows.length > 0;
  }

  /**
   * In the consumer's transaction: should two copies race past `exists`, the second insert waits
   * for the first to commit, then fails on the key, and its transaction (with its effect) rolls back.
   */
  async record(delivery: Delivery): Promise<void> {
    await this.txHost.tx.query(`INSERT INTO ex04.processed_messages (message_id, consumer) VALUES ($1, $2)`, [
      delivery.id,
      delivery.consumer,
    ]);
  }
}
