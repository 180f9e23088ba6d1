import { Injectable } from '@nestjs/common';
import type { Delivery } from '../../../src/infra/outbox';
import type { ProcessedMessages as Dedup } from './exercise';

/**
 * Exercise 04, a wrong answer people write: the right key, (message, consumer), kept in memory.
 * Right until the process restarts: the duplicate that arrives after a restart finds an empty set,
 * and the points are awarded and the receipt sent a second time. Nothing here is in the
 * transaction of the consumer's effect either.
 */
export const schema = `SELECT 1`;

@Injectable()
export class ProcessedMessages implements Dedup {
  private readonly processed = new Set<string>();

  async exists(delivery: Delivery): Promise<boolean> {
    return this.processed.has(`${delivery.id}/${delivery.consumer}`);
  }

  async record(delivery: Delivery): Promise<void> {
    this.processed.add(`${delivery.id}/${delivery.consumer}`);
  }
}
