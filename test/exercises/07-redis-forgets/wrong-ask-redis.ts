import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ORDERS_QUEUE, type OrderJob } from './exercise';

/**
 * Exercise 07, a wrong answer people write: it asks Redis whether a job is done. A finished job
 * leaves Redis (removeOnComplete), so "the job is gone" is taken to mean "the warehouse handled
 * it". But a job that Redis forgot is gone too: the witness asked is the one that lost it.
 */
@Injectable()
export class OrdersRelay {
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
      await this.queue.add('order-placed', { messageId: message.id, orderId: message.order_id }, { jobId: message.id });
      await this.dataSource.query(`UPDATE ex07.outbox SET published_at = clock_timestamp() WHERE id = $1`, [
        message.id,
      ]);
    }
  }

  @Interval(500)
  async redeliverLost(): Promise<void> {
    const published = await this.dataSource.query<Array<{ id: string; order_id: string }>>(
      `SELECT id, order_id FROM ex07.outbox WHERE published_at IS NOT NULL AND delivered_at IS NULL LIMIT 100`,
    );
    for (const message of published) {
      // Still in Redis: on its way. Gone: handled, since finished jobs leave Redis.
      if (await this.queue.getJob(message.id)) continue;
      await this.dataSource.query(`UPDATE ex07.outbox SET delivered_at = clock_timestamp() WHERE id = $1`, [
        message.id,
      ]);
    }
  }
}
