import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ORDERS_QUEUE, type OrderJob } from './exercise';

/** A pushed message not received after this long may have been lost by Redis: it is pushed again. */
const REDELIVER_AFTER = '1 second';

/**
 * Exercise 07, the reference answer. Redis carries the work; Postgres is the only durable copy.
 * A message is done when the warehouse has it in its inbox (ex07.received), not when Redis took
 * it: until then a sweep pushes it again. What src/infra/outbox/relaying/redelivery.sweeper.ts does for
 * the project's own outbox.
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
      await this.push(message);
      await this.dataSource.query(`UPDATE ex07.outbox SET published_at = clock_timestamp() WHERE id = $1`, [
        message.id,
      ]);
    }
  }

  /**
   * Marks delivered what the warehouse received, and pushes again what it has not received a while
   * after the push. A job that Redis still holds keeps its id, so pushing it again does nothing;
   * and should both copies arrive, the warehouse's inbox absorbs the second.
   */
  @Interval(500)
  async redeliverLost(): Promise<void> {
    await this.dataSource.query(
      `UPDATE ex07.outbox o SET delivered_at = r.received_at
         FROM ex07.received r
        WHERE r.message_id = o.id AND o.delivered_at IS NULL`,
    );
    const lost = await this.dataSource.query<Array<{ id: string; order_id: string }>>(
      `SELECT id, order_id FROM ex07.outbox
        WHERE delivered_at IS NULL AND published_at < clock_timestamp() - $1::interval
        ORDER BY published_at LIMIT 100`,
      [REDELIVER_AFTER],
    );
    for (const message of lost) await this.push(message);
  }

  private async push(message: { id: string; order_id: string }): Promise<void> {
    await this.queue.add('order-placed', { messageId: message.id, orderId: message.order_id }, { jobId: message.id });
  }
}
