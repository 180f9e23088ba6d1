import IORedis from 'ioredis';
import { Client } from 'pg';
import type { PgListener } from '../../src/infra/database/pg-listener';
import { OutboxRelay } from '../../src/infra/outbox/relaying/outbox.relay';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { PgBouncer } from '../support/pgbouncer';
import { SmtpSink } from '../support/smtp-sink';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { TEST_REDIS_URL } from '../support/test-env';
import { expectSettledOnce, REDELIVER_AFTER_MS, RETRY_BACKOFF_MS, startEveryOutcome } from '../topology/topology-cases';

/** The relay's poll: further away than any test here waits, so that only LISTEN can wake it. */
const RELAY_INTERVAL_MS = 60_000;

/**
 * The app through PgBouncer 1.18 in transaction mode, its relay listening on DATABASE_DIRECT_URL.
 * The relay polls once a minute here: what wakes it is its own process's commits, or another
 * replica's NOTIFY, which only its LISTEN hears.
 */
describe('Checkouts through a transaction-mode pooler', () => {
  let bouncer: PgBouncer;
  let sink: SmtpSink;
  let database: TestDatabase;
  let app: TestApp;
  let client: CheckoutClient;
  const connect = () => new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });

  beforeAll(async () => {
    [bouncer, sink, database] = await Promise.all([
      // Fewer server connections than transactions the app runs at once: a transaction that waits
      // for a connection of its own behind the pooler (the gateway's, the email's record) would
      // wait for ever, as it did with the local bus's deliveries in flight.
      PgBouncer.start({ poolSize: 2 }),
      SmtpSink.start(),
      TestDatabase.create(),
    ]);
    app = await TestApp.start({
      database,
      env: {
        DATABASE_URL: bouncer.urlOf(database.url),
        DATABASE_DIRECT_URL: database.url,
        DATABASE_POOLER: 'transaction',
        DATABASE_PREPARED_STATEMENTS: 'false',
        SMTP_URL: sink.url,
        OUTBOX_RELAY_INTERVAL_MS: String(RELAY_INTERVAL_MS),
        OUTBOX_REDELIVER_AFTER_MS: String(REDELIVER_AFTER_MS),
        OUTBOX_SWEEP_INTERVAL_MS: '200',
        OUTBOX_BACKOFF_MS: String(RETRY_BACKOFF_MS),
      },
    });
    await app.ready();
    client = new CheckoutClient(app);
  });
  afterAll(async () => {
    await app?.stop();
    await Promise.all([database?.drop(), sink?.stop()]);
    await bouncer?.stop();
  });

  const listener = () => (app.get(OutboxRelay) as unknown as { listener?: PgListener }).listener;

  it('when another replica commits to the outbox, then the relay hears its NOTIFY through the direct URL, not at its next poll', async () => {
    await eventually(async () => expect(listener()?.hearsProbe).toBe(true), {
      timeoutMs: 10_000,
      what: 'the relay to hear its probe',
    });
    const heardBefore = listener()!.heard;
    // What an API replica's commit sends, through its pool: through the pooler.
    const replica = new Client({ connectionString: bouncer.urlOf(database.url) });
    await replica.connect();
    try {
      await replica.query(`SELECT pg_notify('outbox_messages', '')`);
    } finally {
      await replica.end();
    }
    await eventually(async () => expect(listener()!.heard).toBe(heardBefore + 1), {
      timeoutMs: 10_000,
      what: 'the relay to hear the NOTIFY',
    });
  });

  it('when checkouts of every outcome run in both modes, then each ends as it must, with nothing lost, doubled or held', async () => {
    await expectSettledOnce(app, client, sink, await startEveryOutcome(client), connect);
  });
});
