import { Inject, Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { ORDERS_QUEUE, type OrderJob } from './exercise';

/**
 * Exercise 07, your answer: the shop's relay. It is the relay of lesson 002 (step 2 of the
 * outbox), word for word: every 200 ms it takes the messages not yet published, pushes each to
 * the queue, and marks it published.
 *
 * That survives a Redis that is down (the push throws, the row stays unpublished, the next tick
 * tries again). It does not survive a Redis that said yes and then forgot: a restart without
 * persistence, a FLUSHALL, a failover to a replica that had not caught up.
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
      // The message id as the job id: pushing the same message while its job is still in Redis does nothing.
      await this.queue.add('order-placed', { messageId: message.id, orderId: message.order_id }, { jobId: message.id });
      await this.dataSource.query(`UPDATE ex07.outbox SET published_at = clock_timestamp() WHERE id = $1`, [
        message.id,
      ]);
    }
  }

  // TODO: "published" only means that Redis had the job for a moment. Make every order reach the
  // warehouse even when Redis forgets jobs it had accepted. The warehouse notes each message it
  // handled in ex07.received; ex07.outbox has a delivered_at column that nothing uses yet.
}
