import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import type { Pool } from 'pg';

/**
 * Exercise 07: what the three answers (starter, solution, wrong-*) share, and the fixture around
 * them: the shop's outbox, the queue, and the warehouse that ships what the queue brings.
 */

/** Where the relay pushes: inject it with `@Inject(ORDERS_QUEUE) queue: Queue<OrderJob>`. */
export const ORDERS_QUEUE = 'ORDERS_QUEUE';

/** What one job carries to the warehouse. */
export interface OrderJob {
  /** The outbox row's id: the same on every push of the same message. */
  messageId: string;
  orderId: string;
}

/** What your answer exports: the relay, a Nest provider whose `@Interval` methods the app runs. */
export interface RedisForgetsAnswer {
  OrdersRelay: Type<unknown>;
}

/**
 * The shop writes each order and its message in one transaction (the outbox of lesson 002). The
 * warehouse notes every message it handled in `received`, in the transaction of the shipment.
 * `shipments` has no unique key on purpose: an order shipped twice shows as two rows.
 */
export const schema = `
  CREATE SCHEMA ex07;
  CREATE TABLE ex07.orders (id uuid PRIMARY KEY, placed_at timestamptz NOT NULL DEFAULT clock_timestamp());
  CREATE TABLE ex07.outbox (
    id uuid PRIMARY KEY,
    order_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    published_at timestamptz,
    delivered_at timestamptz
  );
  CREATE TABLE ex07.received (message_id uuid PRIMARY KEY, received_at timestamptz NOT NULL DEFAULT clock_timestamp());
  CREATE TABLE ex07.shipments (order_id uuid NOT NULL, shipped_at timestamptz NOT NULL DEFAULT clock_timestamp());
`;

/** The shop: an order and its message, in one transaction. */
export async function placeOrder(db: Pool, orderId: string, messageId: string): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query(`INSERT INTO ex07.orders (id) VALUES ($1)`, [orderId]);
    await client.query(`INSERT INTO ex07.outbox (id, order_id) VALUES ($1, $2)`, [messageId, orderId]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

/** Connection options (BullMQ opens, and closes, its own connections): wait out a restart, do not fail. */
const connect = (redisUrl: string) => {
  const { hostname, port } = new URL(redisUrl);
  return { host: hostname, port: Number(port), maxRetriesPerRequest: null };
};

/** The orders queue on this Redis, under this key prefix: finished jobs leave Redis, as the project's do. */
export function ordersQueue(redisUrl: string, prefix: string): Queue<OrderJob> {
  return new Queue<OrderJob>('orders', {
    connection: connect(redisUrl),
    prefix,
    defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: 100 },
  });
}

/**
 * The warehouse: ships each order it is handed, once, however often it is handed. Its inbox row
 * and the shipment commit together (lesson 002, technique 1), so a second delivery does nothing.
 */
export function startWarehouse(db: Pool, redisUrl: string, prefix: string): Worker<OrderJob> {
  return new Worker<OrderJob>(
    'orders',
    async (job) => {
      const client = await db.connect();
      try {
        await client.query('BEGIN');
        const fresh = await client.query(
          `INSERT INTO ex07.received (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id`,
          [job.data.messageId],
        );
        if (fresh.rowCount === 1) {
          await client.query(`INSERT INTO ex07.shipments (order_id) VALUES ($1)`, [job.data.orderId]);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    { connection: connect(redisUrl), prefix, concurrency: 4 },
  );
}

@Module({})
export class RedisForgetsModule {
  /** Your relay, with the queue it pushes to. */
  static with(relay: Type<unknown>, queue: Queue<OrderJob>): DynamicModule {
    return { module: RedisForgetsModule, providers: [relay, { provide: ORDERS_QUEUE, useValue: queue }] };
  }
}
