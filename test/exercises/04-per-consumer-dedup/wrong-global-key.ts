import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Delivery } from '../../../src/infra/outbox';
import type { ProcessedMessages as Dedup } from './exercise';

/**
 * Exercise 04, a wrong answer people write: lesson 002's technique 1 as it is printed, keyed by
 * the message id alone. Right while a message has one consumer; with two, the first to process
 * it records it for both.
 */
export const schema = `
  CREATE TABLE ex04.processed_messages (
    message_id uuid PRIMARY KEY,
    processed_at timestamptz NOT NULL DEFAULT clock_timestamp()
  )
`;

@Injectable()
export class ProcessedMessages implements Dedup {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async exists(delivery: Delivery): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(`SELECT 1 FROM ex04.processed_messages WHERE message_id = $1`, [
      delivery.id,
    ]);
    return rows.length > 0;
  }

  async record(delivery: Delivery): Promise<void> {
    await this.txHost.tx.query(`INSERT INTO ex04.processed_messages (message_id) VALUES ($1)`, [delivery.id]);
  }
}
