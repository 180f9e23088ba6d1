import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Delivery } from '../../../src/infra/outbox';
import type { ProcessedMessages as Dedup } from './exercise';

/**
 * Exercise 04, a wrong answer people write: the right key, (message, consumer), in a table, read
 * and written with the DataSource "as every repository does". `dataSource.query` runs on a
 * connection of its own and commits at once, outside the delivery's transaction: when that
 * transaction fails to commit, the receipt is gone and the record says it was sent, so the
 * delivery taken again skips it. Nobody ever gets that receipt.
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
  constructor(private readonly dataSource: DataSource) {}

  async exists(delivery: Delivery): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM ex04.processed_messages WHERE message_id = $1 AND consumer = $2`,
      [delivery.id, delivery.consumer],
    );
    return rows.length > 0;
  }

  async record(delivery: Delivery): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ex04.processed_messages (message_id, consumer) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [delivery.id, delivery.consumer],
    );
  }
}
