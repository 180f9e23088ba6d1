import { randomUUID } from 'node:crypto';
import { quiet } from '../../support/quiet';
import { RedisServer } from '../../support/redis-server';
import { ExerciseProcess } from '../support/exercise-app';
import { implementationPath, invariant, narrate } from '../support/track';
import { CRASH_AFTER_ORDER_COMMIT, type Order } from './exercise';

/**
 * Exercise 01: the dual write (lesson 002, exercise 1). The shop runs as a process of its own, with
 * a Redis of its own (the broker), so that the story can kill the one and stop the other.
 *
 * The invariant, in every case: an order that was committed reaches shipping exactly once; an
 * order that was not committed never reaches it.
 */
describe('Exercise 01: the dual write', () => {
  let broker: RedisServer;
  let shop: ExerciseProcess;

  beforeAll(async () => {
    broker = await RedisServer.start();
    shop = await ExerciseProcess.start({
      modules: [{ file: implementationPath(__dirname), name: 'OrderDeskModule' }],
      // The sweep judges a message delivered (or pushes it again) 200 ms after it was pushed, so
      // that a wait for quiet after each order is over in a fraction of a second.
      env: { REDIS_URL: broker.url, OUTBOX_REDELIVER_AFTER_MS: '200', OUTBOX_SWEEP_INTERVAL_MS: '100' },
    });
  }, 90_000);
  afterAll(async () => {
    await shop?.stop();
    await broker?.stop();
  });

  const newOrder = (): Order => ({ id: randomUUID(), amountCents: 4_200 });

  /** Asks the shop's till to place the order; says what the buyer was told. */
  async function place(order: Order): Promise<void> {
    const answer = await shop.client.call<{ placed: boolean; error?: string }>('POST', '/exercise/orders', 200, order);
    narrate(answer.placed ? 'the till says: order placed' : `the till says: order failed (${answer.error})`);
  }

  /**
   * Once nothing is in flight any more (outbox, relay, the outbox's queues and the broker's), and
   * nothing has moved for half a second more (an answer that retries on its own, out of sight,
   * retries within it): is the order there, and how many parcels?
   */
  async function fateOf(order: Order): Promise<{ committed: boolean; parcels: number }> {
    await quiet({ database: shop.database, queuePrefix: shop.queuePrefix }, { redisUrl: broker.url, stableForMs: 500 });
    const [{ committed, parcels }] = await shop.database.query<{ committed: boolean; parcels: number }>(
      `SELECT EXISTS (SELECT 1 FROM shop.orders WHERE id = $1) AS committed,
              (SELECT count(*)::int FROM shop.parcels WHERE order_id = $1) AS parcels`,
      [order.id],
    );
    narrate(`the order ${committed ? 'is' : 'is not'} in the database; shipping prepared ${parcels} parcel(s) for it`);
    return { committed, parcels };
  }

  function expectOnceIfCommitted({ committed, parcels }: { committed: boolean; parcels: number }): void {
    invariant(
      committed
        ? 'the order was committed, so shipping must hear of it exactly once'
        : 'the order was not committed, so shipping must never hear of it',
      parcels,
      committed ? 1 : 0,
    );
  }

  it('when nothing fails, then the order is saved and shipping hears of it once', async () => {
    const order = newOrder();

    await place(order);

    const fate = await fateOf(order);
    invariant('with nothing failing, the order must be saved', fate.committed, true);
    expectOnceIfCommitted(fate);
  });

  it('when the database refuses the commit, then shipping never hears of an order that does not exist', async () => {
    const order = newOrder();
    await shop.database.query(`INSERT INTO shop.doomed_commits (order_id) VALUES ($1)`, [order.id]);
    narrate('injected: the database will fail the COMMIT of this order (a deferred trigger raises at commit)');

    await place(order);

    expectOnceIfCommitted(await fateOf(order));
  });

  it('when the broker is down at the moment of publishing, then the order still reaches shipping once it is back', async () => {
    const order = newOrder();
    await broker.stop();
    narrate("injected: the broker (the shop's Redis) is down: nothing answers on its port");

    await place(order);
    await broker.restart();
    narrate('the broker is back, empty (it keeps nothing on disk)');

    expectOnceIfCommitted(await fateOf(order));
  });

  it('when the process dies right after the order commits, then the order still reaches shipping once, after a restart', async () => {
    const order = newOrder();
    await shop.client.setFaults([{ point: CRASH_AFTER_ORDER_COMMIT, action: 'crash', times: 1 }]);
    narrate("injected: the process dies (SIGKILL) the moment the order's row is committed");

    await place(order).catch(() => narrate('the till never answered: the process died'));
    await shop.died();
    await shop.restart();
    narrate('the shop is started again, on the same database and broker');

    expectOnceIfCommitted(await fateOf(order));
  });
});
