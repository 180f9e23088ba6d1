import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ORDERS_QUEUE, type OrderJob } from './exercise';

/**
 * A learner's words: "Redis only forgets when it restarts, and a restart of the platform restarts
 * us too. So when the app starts, it pushes again everything the warehouse has not received; the
 * job id keeps that harmless."
 *
 * What it gets wrong: Redis and the app do not restart together. Redis can lose its jobs while
 * the app runs on (a failover, a restart of Redis alone), or just after the app has started and
 * pushed again. Pushing again is needed whenever a message goes unreceived, not once at boot.
 */
@Injectable()
export class OrdersRelay implements OnApplicationBootstrap {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(ORDERS_QUEUE) private readonly queue: Queue<OrderJob>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const unreceived = await this.dataSource.query<Array<{ id: string; order_id: string }>>(
      `SELECT o.id, o.order_id FROM ex07.outbox o
        WHERE o.published_at IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM ex07.received r WHERE r.message_id = o.id)`,
    );
    for (const message of unreceived) await this.push(message);
  }

  @Interval(200)
  async publishPending(): Promise<void> {
    const pending = await this.dataSource.query<Array<{ id: string; order_id: string }>>(
      `SELECT id, order_id FROM ex07.outbox WHERE published_at IS NULL ORDER BY created_at LIMIT 100`,
    );
    for (const message of pending) {
      await this.push(message);
      await this.dataSource.query(`UPDATE ex07.outbox SET published_at = clock_timestamp() WHERE id = $1`, [
        message.id,
      ]);
    }
  }

  private async push(message: { id: string; order_id: string }): Promise<void> {
    await this.queue.add('order-placed', { messageId: message.id, orderId: message.order_id }, { jobId: message.id });
  }
}
