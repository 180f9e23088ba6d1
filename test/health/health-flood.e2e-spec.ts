import { Subscriptions } from '../../src/infra/outbox/consuming/subscriptions';
import { freePort } from '../support/app-process';
import { eventually } from '../support/eventually';
import { TcpProxy } from '../support/tcp-proxy';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { TEST_REDIS_URL } from '../support/test-env';

/** Calls at once in a wave, and waves one after the other: 50 calls, as a flood of probes would come. */
const WAVE = 10;
const WAVES = 5;

/** What each check sends, as its protocol spells it: Postgres' simple query, Redis' RESP commands. */
const SENT_BY_A_CHECK = { select: 'SELECT 1\0', ping: '$4\r\nping\r\n', exists: '$6\r\nexists\r\n' };

async function proxyTo(url: string): Promise<TcpProxy> {
  const real = new URL(url);
  const proxy = new TcpProxy(await freePort(), { host: real.hostname, port: Number(real.port) });
  await proxy.open();
  return proxy;
}

/**
 * Issue 36 (item 10): anonymous `GET /health` answers from a check at most a second old, and the
 * calls that come while a check is under way wait for that one: a flood costs what a call a
 * second does. What the checks send is counted on the wire, by proxies in front of Postgres and
 * Redis. The app runs the api role alone: nothing else of it reads or writes meanwhile.
 */
describe('GET /health under a flood', () => {
  let database: TestDatabase;
  let postgres: TcpProxy;
  let redis: TcpProxy;
  let app: TestApp;

  beforeAll(async () => {
    database = await TestDatabase.create();
    postgres = await proxyTo(database.url);
    redis = await proxyTo(TEST_REDIS_URL);
    app = await TestApp.start({
      database,
      env: {
        APP_ROLES: 'api',
        DATABASE_URL: postgres.urlOf(database.url),
        REDIS_URL: redis.urlOf(TEST_REDIS_URL),
        DATABASE_RETRY_MS: '200',
      },
    });
    await app.ready();
    await eventually(() => app.http().get('/health').expect(200), { what: 'the app to be healthy' });
  });
  afterAll(async () => {
    await app.stop();
    await Promise.all([postgres.close(), redis.close()]);
    await database.drop();
  });

  it('when 50 calls come within a second, then each answers 200 as before, and Postgres and Redis see a check a second at most', async () => {
    const selects = postgres.countSent(SENT_BY_A_CHECK.select);
    const pings = redis.countSent(SENT_BY_A_CHECK.ping);
    const exists = redis.countSent(SENT_BY_A_CHECK.exists);
    const startedAt = Date.now();

    const answers: Array<{ status: number; body: unknown }> = [];
    for (let wave = 0; wave < WAVES; wave++) {
      answers.push(...(await Promise.all(Array.from({ length: WAVE }, () => app.http().get('/health')))));
    }
    // Then calls until one of them brings a check: the proxies do see checks when they come.
    await eventually(
      async () => {
        await app.http().get('/health').expect(200);
        return selects() > 0 && pings() > 0;
      },
      { intervalMs: 100, what: 'a check to reach Postgres and Redis' },
    );
    const elapsedMs = Date.now() - startedAt;

    expect(answers.map(({ status }) => status)).toEqual(Array.from({ length: WAVE * WAVES }, () => 200));
    const up = {
      postgres: { status: 'up', responseTime: expect.any(Number) },
      redis: { status: 'up', topology: 'server', responseTime: expect.any(Number) },
      queues: { status: 'up' },
    };
    expect(answers[0].body).toEqual({ status: 'ok', info: up, error: {}, details: up });
    process.stdout.write(
      `${answers.length} calls, then one every 100 ms until a check: ${elapsedMs} ms, ` +
        `${selects()} SELECT 1, ${pings()} PING, ${exists()} EXISTS sent\n`,
    );
    // A check starts only when the last one's result is a second old: one in each second begun.
    const checks = Math.floor(elapsedMs / 1_000) + 1;
    expect(selects()).toBeLessThanOrEqual(checks);
    expect(pings()).toBeLessThanOrEqual(checks);
    // One read of a key of each queue's producer and worker, at most, per check.
    expect(exists()).toBeLessThanOrEqual(checks * 2 * app.get(Subscriptions).queues().length);
  });

  it('when Postgres goes away, then /health says so within about a second', async () => {
    await app.http().get('/health').expect(200);

    const cutAt = Date.now();
    await postgres.close();
    await eventually(
      async () => {
        const { status, body } = await app.http().get('/health');
        expect({ status, postgres: body.details?.postgres }).toEqual({ status: 503, postgres: { status: 'down' } });
      },
      { intervalMs: 50, what: '/health to answer 503 naming postgres' },
    );
    const noticedMs = Date.now() - cutAt;

    process.stdout.write(`/health said postgres was down ${noticedMs} ms after the cut\n`);
    expect(noticedMs).toBeLessThan(2_500);
  });
});
