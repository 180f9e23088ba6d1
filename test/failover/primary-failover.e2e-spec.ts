import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { freePort } from '../support/app-process';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { PostgresPair } from '../support/postgres-pair';
import { SmtpSink } from '../support/smtp-sink';
import { TcpProxy } from '../support/tcp-proxy';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { TEST_REDIS_URL } from '../support/test-env';
import { expectSettledOnce, FINAL, startEveryOutcome, startHappy, TOPOLOGY_APP_ENV } from '../topology/topology-cases';

/**
 * The app's Postgres is a primary with a synchronous streaming standby (a private pair, from the
 * Postgres 15 binaries), reached through one TCP endpoint, as through a virtual IP or HAProxy. The
 * primary dies under load in both modes while its standby lags (its WAL receiver held, so that
 * the commits in flight at the kill are on the primary alone); the standby is promoted and the
 * endpoint re-pointed at it, as an operator's failover tool does. The app is not told: it
 * reconnects by itself. Every checkout a buyer was answered 202 for is on the new primary, every
 * checkout ends as its scenario says, and what left the system (the SMTP server's mail, the
 * gateway's records) is there once.
 */
const HOST = '127.0.0.1';
/** How long the standby lags before the kill: commits wait (well under DATABASE_STATEMENT_TIMEOUT_MS). */
const LAG_MS = 1_500;

describe('When the Postgres primary dies', () => {
  let pair: PostgresPair;
  let endpoint: TcpProxy;
  let sink: SmtpSink;
  let app: TestApp;
  let client: CheckoutClient;
  const connect = () => new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true });

  beforeAll(async () => {
    [pair, sink] = await Promise.all([PostgresPair.start({ synchronous: true }), SmtpSink.start()]);
    endpoint = new TcpProxy(await freePort(), { host: HOST, port: pair.primary.port });
    await endpoint.open();
    await pair.createDatabase('checkout_failover_test');
    app = await TestApp.start({
      // The app migrates its database on the primary at start (DATABASE_MIGRATIONS_RUN's default).
      database: TestDatabase.at(`postgres://postgres@${HOST}:${endpoint.port}/checkout_failover_test`),
      env: {
        ...TOPOLOGY_APP_ENV,
        REDIS_URL: TEST_REDIS_URL,
        OUTBOX_BACKOFF_MS: '1000',
        DATABASE_RETRY_MS: '200',
        SMTP_URL: sink.url,
      },
    });
    await app.ready();
    client = new CheckoutClient(app);
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await app?.database.drop();
    await endpoint?.close();
    await Promise.all([pair?.stop(), sink?.stop()]);
  });

  it('when the primary is killed under load and the standby promoted, then the app reconnects by itself, and every checkout it answered is there and ends once', async () => {
    const buyer = await client.createUser({ country: 'PT' });
    const before = [...(await startEveryOutcome(client)), ...(await startHappy(client, 6))];
    // Under way when the standby stops following: their commits wait on the primary for it.
    const answered: string[] = [];
    const during = Array.from({ length: 8 }, (_, i) =>
      startAsABuyerWould(client, buyer.id, i % 2 ? 'orchestration' : 'choreography', answered),
    );
    await pair.holdStandby();
    const held = Array.from({ length: 8 }, (_, i) =>
      startAsABuyerWould(client, buyer.id, i % 2 ? 'orchestration' : 'choreography', answered),
    );
    await new Promise((resolve) => setTimeout(resolve, LAG_MS));
    const answeredAtKill = [...answered];

    const killedAt = Date.now();
    await pair.killPrimary();
    const first = firstCheckoutAfter(client, buyer.id, killedAt);
    await pair.promoteStandby();
    endpoint.repoint({ host: HOST, port: pair.standby.port });
    const promotedMs = Date.now() - killedAt;

    // Nothing the app answered 202 for before the kill is missing from the new primary.
    const missing: string[] = [];
    for (const id of answeredAtKill) {
      const { status } = await app.http().get(`/checkouts/${id}`).set(client.authFor(buyer.id));
      if (status !== 200) missing.push(`${id}: ${status}`);
    }
    expect({ answered: answeredAtKill.length, missing }).toEqual({ answered: answeredAtKill.length, missing: [] });
    const { acceptedMs, completedMs, ...after } = await first;
    const checkouts = [...before, ...(await Promise.all([...during, ...held])), after];
    await expectSettledOnce(app, client, sink, checkouts, connect);
    process.stdout.write(
      `Postgres primary failover: ${answeredAtKill.length} checkout(s) answered while the standby lagged; ` +
        `standby promoted and endpoint re-pointed ${promotedMs} ms after the kill; first checkout accepted ` +
        `${acceptedMs} ms and completed ${completedMs} ms after the kill\n`,
    );
  }, 90_000);
});

/**
 * Starts a checkout as a buyer's client would across an outage: with an Idempotency-Key, sent
 * again with the same key until the app answers 202. Its id goes into `answered` once answered.
 */
async function startAsABuyerWould(
  client: CheckoutClient,
  userId: string,
  mode: string,
  answered: string[],
): Promise<{ id: string; expected: 'COMPLETED' }> {
  const key = randomUUID();
  const id = await eventually(() => client.start({ userId, mode }, { 'idempotency-key': key }), {
    timeoutMs: 45_000,
    intervalMs: 100,
    what: 'the app to accept the checkout',
  });
  answered.push(id);
  return { id, expected: 'COMPLETED' };
}

/** From the kill: when the first checkout started afterwards was accepted, and when it completed. */
async function firstCheckoutAfter(
  client: CheckoutClient,
  userId: string,
  killedAt: number,
): Promise<{ id: string; expected: 'COMPLETED'; acceptedMs: number; completedMs: number }> {
  const { id, expected } = await startAsABuyerWould(client, userId, 'orchestration', []);
  const acceptedMs = Date.now() - killedAt;
  const { status } = await client.until(id, FINAL, 45_000);
  expect(status).toBe('COMPLETED');
  return { id, expected, acceptedMs, completedMs: Date.now() - killedAt };
}
