import { CheckoutClient } from '../support/checkout-client';
import { logs, newQueuePrefix, TestApp } from '../support/test-app';
import { RedisServer } from '../support/redis-server';
import { TestDatabase } from '../support/test-database';

/**
 * The rate limits hold for the deployment: replicas count in its Redis, so two of them allow what
 * one does (ADR 0073). Reads have a limit of their own, shared by every GET route. When Redis does
 * not answer, each process counts alone: the limits hold per process, nothing fails.
 */
describe('Rate limits for the deployment', () => {
  const apps: TestApp[] = [];
  let redis: RedisServer | undefined;
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.stop();
    await redis?.stop();
  });
  const start = async (options: Parameters<typeof TestApp.start>[0]) => {
    const app = await TestApp.start(options);
    apps.push(app);
    return app;
  };
  const users = async (app: TestApp) =>
    (await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM identity.users'))[0].n;

  it('when one client signs up through two replicas, then they count together: the limit holds for the deployment', async () => {
    const database = await TestDatabase.create();
    const queuePrefix = newQueuePrefix();
    const env = { APP_ROLES: 'api', RATE_LIMIT_SIGNUPS: '2', RATE_LIMIT_WINDOW_MS: '60000' };
    const first = await TestApp.start({ env, database, queuePrefix });
    const second = await TestApp.start({ env, database, queuePrefix });
    const firstClient = new CheckoutClient(first);
    const secondClient = new CheckoutClient(second);
    try {
      await firstClient.createUser();
      await secondClient.createUser();

      const refused = await firstClient.signUp().expect(429);
      await secondClient.signUp().expect(429);

      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await users(first)).toBe(2);
    } finally {
      await first.stop();
      await second.stop();
      await database.drop();
    }
  });

  it('when a client floods reads, then every GET route refuses it with 429 and a JSON body once its reads are spent', async () => {
    const app = await start({ env: { APP_ROLES: 'api', RATE_LIMIT_READS: '3', RATE_LIMIT_WINDOW_MS: '60000' } });

    await app.http().get('/plans').expect(200);
    await app.http().get('/plans').expect(200);
    await app.http().get('/health').expect(200);
    const refused = await app.http().get('/metrics').expect(429);

    expect(refused.body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: expect.stringContaining('Retry-After'),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await app.http().get('/plans').expect(429);
    // Writes keep their own counts (off here).
    await new CheckoutClient(app).createUser();
  });

  it('when Redis stops answering, then each process counts alone: the limit still holds, and nothing fails', async () => {
    redis = await RedisServer.start();
    const app = await start({
      env: { APP_ROLES: 'api', REDIS_URL: redis.url, RATE_LIMIT_SIGNUPS: '2', RATE_LIMIT_WINDOW_MS: '60000' },
    });
    const client = new CheckoutClient(app);
    await client.createUser(); // counted in Redis
    await redis.stop();

    await client.createUser();
    await client.createUser();
    await client.signUp().expect(429);

    expect(await users(app)).toBe(3);
    expect(
      logs.matching((line) => /counted by this process alone while Redis does not answer/.test(String(line.msg))),
    ).not.toHaveLength(0);
  });
});
