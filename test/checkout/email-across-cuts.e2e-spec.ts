import { freePort } from '../support/app-process';
import { CheckoutClient } from '../support/checkout-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { SmtpSink } from '../support/smtp-sink';
import { TcpProxy } from '../support/tcp-proxy';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

const MODES = ['choreography', 'orchestration'] as const;

/** The Message-ID every copy of a checkout's welcome email carries (MAIL_FROM's domain is checkout.local). */
const welcomeId = (checkoutId: string) => `<welcome.${checkoutId}@checkout.local>`;

/** How long Postgres stays out of reach after each cut: longer than a few retries of the record. */
const OUTAGE_MS = 600;

/**
 * A welcome email whose delivery loses Postgres at the worst moment: every connection of the app
 * (its pool, the transaction that sends the email, the pool that records hand-overs) is cut right
 * as the SMTP server answers that it took the email, and Postgres stays out of reach for a while.
 * The transaction cannot commit, so the delivery runs again; the hand-over is recorded once
 * Postgres answers, and the second run finds it and does not hand the email over again. Copies
 * are counted at the SMTP server, once the system is quiet.
 */
describe('A welcome email across a cut of every Postgres connection', () => {
  let sink: SmtpSink;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    database = await TestDatabase.create();
    const direct = new URL(database.url);
    proxy = new TcpProxy(await freePort(), { host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.open();
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    app = await TestApp.start({
      database,
      env: {
        ...QUIET_ENV,
        DATABASE_URL: proxied.toString(),
        DATABASE_RETRY_MS: '200',
        SMTP_URL: sink.url,
        OUTBOX_RELAY_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_MS: '50',
        SAGA_STEP_TIMEOUT_MS: '1000',
        SAGA_STEP_ATTEMPTS: '10',
        SAGA_SWEEP_INTERVAL_MS: '100',
      },
    });
    client = new CheckoutClient(app);
  });
  afterAll(async () => {
    sink.onReceived = undefined;
    await app.stop();
    await proxy.close();
    await database.drop();
    await sink.stop();
  });

  it.each(MODES)(
    'when every Postgres connection is cut as the SMTP server takes the welcome email (%s), then the buyer gets it once, no attempt is spent, and the checkout completes',
    async (mode) => {
      const buyer = await client.createUser();
      let cuts = 0;
      const healed: Array<Promise<void>> = [];
      sink.onReceived = (mail) => {
        if (cuts > 0 || !mail.to.includes(buyer.email)) return;
        cuts += 1;
        // Synchronous up to the sockets' end: the app reads the SMTP answer with Postgres gone.
        const reopened = proxy.close().then(() => new Promise((resolve) => setTimeout(resolve, OUTAGE_MS)));
        healed.push(reopened.then(() => proxy.open()));
      };

      const id = await client.start({ userId: buyer.id, mode });
      await client.until(id, ['COMPLETED'], 45_000);
      await Promise.all(healed);
      await quiet(app, { timeoutMs: 45_000 });

      expect(cuts).toBe(1);
      expect(sink.withHeader('message-id', welcomeId(id))).toHaveLength(1);
      expect((await client.leftTheSystem(id)).welcomeEmails).toBe(1);
      expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
      // An outage is not the message's fault: the delivery was postponed, never counted as failed.
      expect(
        await database.query(
          `SELECT consumer, error FROM outbox.delivery_attempts
            WHERE outcome <> 'duplicate'
              AND correlation_id = (SELECT correlation_id FROM checkout.checkouts WHERE id = $1)`,
          [id],
        ),
      ).toEqual([]);
      expect((await client.invariants([id])).violations).toEqual([]);
    },
    90_000,
  );
});
