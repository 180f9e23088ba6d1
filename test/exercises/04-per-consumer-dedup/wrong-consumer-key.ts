import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Delivery } from '../../../src/infra/outbox';
import type { ProcessedMessages as Dedup } from './exercise';

/**
 * Exercise 04, a wrong answer people write: having seen that the message id alone silences the
 * second consumer, the key becomes the consumer. Right for one order; from the second order on,
 * each consumer finds its own row and skips every order but the first.
 */
export const schema = `
  CREATE TABLE ex04.processed_messages (
    consumer text PRIMARY KEY,
    processed_at timestamptz NOT NULL DEFAULT clock_timestamp()
  )
`;

@Injectable()
export class ProcessedMessages implements Dedup {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async exists(delivery: Delivery): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(`SELECT 1 FROM ex04.processed_messages WHERE consumer = $1`, [
      delivery.consumer,
    ]);
    return rows.length > 0;
  }

  async record(delivery: Delivery): Promise<void> {
    await this.txHost.tx.query(`INSERT INTO ex04.processed_messages (consumer) VALUES ($1)`, [delivery.consumer]);
  }
}
