import { randomBytes } from 'node:crypto';
import { AppProcess } from '../support/app-process';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { RedisTlsServer } from '../support/redis-tls';
import { SmtpSink } from '../support/smtp-sink';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { expectSettledOnce, startEveryOutcome, TOPOLOGY_APP_ENV } from './topology-cases';

/** The app on a Redis that speaks only TLS, with an ACL user: a rediss:// REDIS_URL and the CA to trust. */
describe('On a Redis reached over TLS', () => {
  const auth = { username: 'checkout-app', password: randomBytes(12).toString('hex') };
  let redis: RedisTlsServer;
  let sink: SmtpSink;
  let app: TestApp;

  beforeAll(async () => {
    [redis, sink] = await Promise.all([RedisTlsServer.start(auth), SmtpSink.start()]);
    app = await TestApp.start({
      env: { ...TOPOLOGY_APP_ENV, REDIS_URL: redis.url, REDIS_TLS_CA_FILE: redis.caFile, SMTP_URL: sink.url },
    });
  });
  afterAll(async () => {
    await app?.stop();
    await Promise.all([redis?.stop(), sink?.stop()]);
  });

  it("when the app trusts the server's certificate authority, then checkouts of every outcome in both modes end as they must, once", async () => {
    const client = new CheckoutClient(app);
    await expectSettledOnce(app, client, sink, await startEveryOutcome(client), () => redis.client());
    // Nothing reached Redis in the clear: the server has no plaintext port at all, and the queues are there.
    expect(await redis.command((redisClient) => redisClient.dbsize())).toBeGreaterThan(0);
  });

  it('when the app does not trust the certificate, then it does not speak to that Redis, and /health says why to the operator', async () => {
    const database = await TestDatabase.create();
    const untrusting = await AppProcess.start({ DATABASE_URL: database.url, REDIS_URL: redis.url, ADMIN_TOKEN });
    try {
      const health = await eventually(
        async () => {
          const answer = await untrusting.get('/health', { authorization: `Bearer ${ADMIN_TOKEN}` });
          expect(answer).toMatchObject({ status: 503, body: { details: { redis: { status: 'down' } } } });
          return answer.body;
        },
        { timeoutMs: 60_000 }, // the process boots first
      );
      expect(JSON.stringify(health)).toMatch(/certificate/i);
    } finally {
      await untrusting.stop();
      await database.drop();
    }
  });
});
