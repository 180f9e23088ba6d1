import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ORDERS_QUEUE, type OrderJob } from './exercise';

/**
 * A learner's words: "The relay remembers what it pushed and when. Every half second it asks the
 * warehouse's inbox about those, and pushes again whatever is still not received a second later.
 * No new column, no change to the outbox."
 *
 * What it gets wrong: what it remembers lives in the relay's memory, and a restart of the app
 * wipes it. The outbox says "published", the memory is empty, and the orders Redis then forgets
 * are pushed by no one. What must survive a restart belongs in Postgres.
 */
@Injectable()
export class OrdersRelay {
  /** Message id -> the order, and when it was pushed. */
  private readonly pushed = new Map<string, { orderId: string; at: number }>();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ORDERS_QUEUE) private readonly queue: Queue<OrderJob>,
  ) {}

  @Interval(200)
  async publishPending(): Promise<void> {
    const pending = await this.dataSource.query<Array<{ id: string; order_id: string }>>(
      `SELECT id, order_id FROM ex07.outbox WHERE published_at IS NULL ORDER BY created_at LIMIT 100`,
    );
    for (const message of pending) {
      await this.push(message.id, message.order_id);
      await this.dataSource.query(`UPDATE ex07.outbox SET published_at = clock_timestamp() WHERE id = $1`, [
        message.id,
      ]);
    }
  }

  @Interval(500)
  async redeliverLost(): Promise<void> {
    if (this.pushed.size === 0) return;
    const received = await this.dataSource.query<Array<{ message_id: string }>>(
      `SELECT message_id FROM ex07.received WHERE message_id = ANY($1::uuid[])`,
      [[...this.pushed.keys()]],
    );
    for (const { message_id } of received) this.pushed.delete(message_id);
    for (const [messageId, { orderId, at }] of this.pushed) {
      if (Date.now() - at > 1_000) await this.push(messageId, orderId);
    }
  }

  private async push(messageId: string, orderId: string): Promise<void> {
    await this.queue.add('order-placed', { messageId, orderId }, { jobId: messageId });
    this.pushed.set(messageId, { orderId, at: Date.now() });
  }
}
