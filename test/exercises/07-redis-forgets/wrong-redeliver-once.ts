import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ORDERS_QUEUE, type OrderJob } from './exercise';

/**
 * A learner's words: "What the warehouse has not received a second after the push, I push once
 * more, and then it is done: Redis will not lose the same job twice."
 *
 * What it gets wrong: Redis can forget again, and "pushed twice" is no more "delivered" than
 * "pushed once". It marks the message delivered when it pushes it again, so after a second loss
 * nothing ever pushes it a third time. Only the warehouse's inbox says an order arrived.
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
  async redeliverOnce(): Promise<void> {
    const lost = await this.dataSource.query<Array<{ id: string; order_id: string }>>(
      `SELECT o.id, o.order_id FROM ex07.outbox o
        WHERE o.delivered_at IS NULL AND o.published_at < clock_timestamp() - interval '1 second'
          AND NOT EXISTS (SELECT 1 FROM ex07.received r WHERE r.message_id = o.id)
        LIMIT 100`,
    );
    for (const message of lost) {
      await this.queue.add('order-placed', { messageId: message.id, orderId: message.order_id }, { jobId: message.id });
      // Pushed a second time: that one will get there.
      await this.dataSource.query(`UPDATE ex07.outbox SET delivered_at = clock_timestamp() WHERE id = $1`, [
        message.id,
      ]);
    }
  }
}
