import { AppProcess, freePort } from '../support/app-process';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { TcpProxy } from '../support/tcp-proxy';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/**
 * The workers (a process of their own) lose Postgres, which they reach through a proxy that the
 * test closes, while checkouts are queued for them, for longer than all the retries of a delivery
 * take. An outage is not the message's fault: it must not spend the business retry budget.
 */
describe('Deliveries through a Postgres outage', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let front: TestApp;
  let workers: AppProcess;
  let client: CheckoutClient;
  const env = {
    // All the attempts of a delivery take about 150 ms.
    OUTBOX_ATTEMPTS: '3',
    OUTBOX_BACKOFF_MS: '50',
    // The sweep is kept out of the way: only the deliveries' own retries can finish the checkouts.
    OUTBOX_REDELIVER_AFTER_MS: '120000',
  };

  /** How often the workers have tried a first step, whatever came of it. */
  const firstStepTries = async () => {
    const { body } = await workers.get('/metrics');
    return String(body)
      .split('\n')
      .filter((line) => line.startsWith('outbox_consumed_total{consumer="identity.verify-user"'))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
    proxy = new TcpProxy(await freePort(), { host: '127.0.0.1', port: Number(new URL(database.url).port || 5432) });
    await proxy.open();
    const viaProxy = new URL(database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    front = await TestApp.start({ database, env: { ...env, APP_ROLES: 'api,relay' } });
    workers = await AppProcess.start({
      ...env,
      APP_ROLES: 'worker,orchestrator',
      DATABASE_URL: viaProxy.toString(),
      DATABASE_RETRY_MS: '200',
      QUEUE_PREFIX: front.queuePrefix,
    });
    await eventually(async () => expect((await workers.get('/health')).status).toBe(200), { timeoutMs: 60_000 });
    client = new CheckoutClient(front);
  });
  afterAll(async () => {
    await workers.stop();
    await front.stop();
    await proxy.close();
    await database.drop();
  });

  it('when Postgres is gone for longer than all retries take, then no message is dead-lettered and every checkout completes', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => client.createUser()));
    await proxy.close();

    const checkoutIds = await Promise.all(users.map((user) => client.start({ userId: user.id })));
    // Every first step has been tried at least as often as its attempts allow, while Postgres was away.
    await eventually(async () => expect(await firstStepTries()).toBeGreaterThanOrEqual(3 * checkoutIds.length), {
      timeoutMs: 30_000,
    });
    await proxy.open();

    for (const id of checkoutIds) await client.until(id, ['COMPLETED'], 30_000);
    expect(await database.query(`SELECT consumer, error FROM outbox.dead_letters`)).toEqual([]);
    expect((await client.invariants(checkoutIds)).violations).toEqual([]);
  }, 120_000);
});
