import type { Queue, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { RedisServer } from '../../support/redis-server';
import { newQueuePrefix, TestApp } from '../../support/test-app';
import { TestDatabase } from '../../support/test-database';
import { implementation, narrate } from '../support/track';
import {
  type OrderJob,
  ordersQueue,
  placeOrder,
  type RedisForgetsAnswer,
  RedisForgetsModule,
  schema,
  startWarehouse,
} from './exercise';

const answer = implementation<RedisForgetsAnswer>(__dirname);

const ORDERS = 10;
/**
 * How long the relay has, after Redis forgot its jobs, to push them again: three times what the
 * reference answer takes (it pushes again what is unreceived a second after the push, looking
 * every half second), so that an answer written differently has room. Then the warehouse has a
 * second to ship what it was handed. A run that has not seen every order shipped by then is red.
 */
const PUSH_AGAIN_WITHIN_MS = 3_000;
const SHIP_WITHIN_MS = 1_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds or the deadline passes; says which. The assertion after it says what broke. */
async function settles(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await pause(100);
  }
}

/**
 * Exercise 07: Redis forgets. The relay pushes every order to Redis; the shop's app restarts;
 * Redis (a server of this test's own) is flushed before the warehouse takes a single one, as a
 * restart without persistence would leave it, and flushed again once the relay has pushed the
 * orders again. Every order must still be shipped, exactly once.
 */
describe('Exercise 07: Redis forgets', () => {
  let redis: RedisServer;
  let database: TestDatabase;
  let queue: Queue<OrderJob>;
  let app: TestApp | undefined;
  let warehouse: Worker<OrderJob> | undefined;
  const prefix = newQueuePrefix();

  const jobsInRedis = async () => {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  };
  const shipmentsOf = async (orderIds: string[]) => {
    const rows = await database.query<{ order_id: string; n: number }>(
      `SELECT order_id, count(*)::int AS n FROM ex07.shipments WHERE order_id = ANY($1::uuid[]) GROUP BY order_id`,
      [orderIds],
    );
    return new Map(rows.map((row) => [row.order_id, row.n]));
  };

  /** The shop's app, with your relay in it, on the test's database and Redis. */
  const startShop = async () => {
    const shop = await TestApp.start({
      database,
      imports: [RedisForgetsModule.with(answer.OrdersRelay, queue)],
      // Only the HTTP side of the app: the relay under test is yours, not the project's.
      env: { APP_ROLES: 'api' },
    });
    await shop.ready();
    return shop;
  };

  beforeAll(async () => {
    redis = await RedisServer.start();
    database = await TestDatabase.create();
    await database.query(schema);
    queue = ordersQueue(redis.url, prefix);
    app = await startShop();
  });
  afterAll(async () => {
    await app?.stop(); // first: its timers stop pushing
    await warehouse?.close();
    await queue?.close();
    await redis?.stop();
    await database?.drop();
  });

  it('when Redis forgets every job between the relay and the warehouse, then every order is still shipped exactly once', async () => {
    const orderIds = Array.from({ length: ORDERS }, () => randomUUID());
    for (const orderId of orderIds) await placeOrder(database.pool, orderId, randomUUID());
    narrate(`the shop placed ${ORDERS} orders: each order and its message in one transaction`);

    const pushed = await settles(async () => (await jobsInRedis()) >= ORDERS, 10_000);
    if (!pushed) {
      throw new Error(
        `the relay did not push the ${ORDERS} orders to Redis within 10 s (Redis holds ${await jobsInRedis()} jobs)`,
      );
    }
    narrate(`the relay pushed them: Redis holds ${await jobsInRedis()} jobs; the warehouse is not open yet`);

    await app?.stop();
    app = undefined;
    app = await startShop();
    narrate(
      "the shop's app restarts (a deploy): what its relay held in memory is gone, Postgres and Redis are as they were",
    );

    await redis.flushAll();
    let lostAt = Date.now();
    narrate(
      `FAULT: FLUSHALL on the test's Redis, as a restart without persistence leaves it: ${await jobsInRedis()} jobs left`,
    );

    // A relay that pushes again what Redis lost is given the time to; then Redis forgets once more.
    if (await settles(async () => (await jobsInRedis()) >= ORDERS, PUSH_AGAIN_WITHIN_MS)) {
      narrate(`the relay pushed the lost orders again: Redis holds ${await jobsInRedis()} jobs`);
      await redis.flushAll();
      lostAt = Date.now();
      narrate(
        `FAULT: FLUSHALL again, Redis restarted once more before the warehouse opened: ${await jobsInRedis()} jobs left`,
      );
    } else {
      narrate(
        `${PUSH_AGAIN_WITHIN_MS / 1000} s after the flush Redis holds ${await jobsInRedis()} jobs: nothing pushed them again`,
      );
    }

    warehouse = startWarehouse(database.pool, redis.url, prefix);
    narrate('the warehouse opens and ships whatever the queue brings');

    // Every order shipped, by the relay's time after the last loss and the warehouse's; a second
    // shipment of an order ends the wait at once, the promise broken.
    const shippedByThen = lostAt + PUSH_AGAIN_WITHIN_MS + SHIP_WITHIN_MS;
    const allShipped = await settles(async () => {
      const shipments = await shipmentsOf(orderIds);
      return shipments.size === ORDERS || [...shipments.values()].some((n) => n > 1);
    }, shippedByThen - Date.now());
    // Then until nothing is in flight, seen so twice: a second shipment would have shown by now.
    await settles(async () => (await jobsInRedis()) === 0 && (await pause(300), (await jobsInRedis()) === 0), 5_000);

    const shipments = await shipmentsOf(orderIds);
    const waited = `${(PUSH_AGAIN_WITHIN_MS + SHIP_WITHIN_MS) / 1000} s after Redis last forgot`;
    narrate(
      `${allShipped ? 'every order arrived' : waited}: ${shipments.size} of ${ORDERS} orders shipped, ` +
        `${[...shipments.values()].reduce((sum, n) => sum + n, 0)} shipments`,
    );
    const broken = orderIds.flatMap((orderId, index) => {
      const n = shipments.get(orderId) ?? 0;
      if (n === 1) return [];
      return [`order ${index + 1} (${orderId.slice(0, 8)}): ${n === 0 ? 'never shipped, lost' : `shipped ${n} times`}`];
    });
    if (broken.length > 0) {
      throw new Error(
        `${broken.length} of ${ORDERS} orders were not shipped exactly once after Redis forgot their jobs ` +
          `(the relay had published them all):\n  ${broken.join('\n  ')}`,
      );
    }
  });
});
