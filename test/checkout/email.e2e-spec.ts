import { Faults } from '../../src/infra/faults/faults';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { QUIET_ENV, quiet } from '../support/quiet';
import { SmtpSink } from '../support/smtp-sink';
import { TestApp } from '../support/test-app';

const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];

/** The Message-ID every copy of a checkout's welcome email carries (MAIL_FROM's domain is checkout.local). */
const welcomeId = (checkoutId: string) => `<welcome.${checkoutId}@checkout.local>`;

/** Welcome emails counted by a real SMTP server: what the buyer's mail system would have received. */
describe('Welcome emails, over SMTP', () => {
  let sink: SmtpSink;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        SMTP_URL: sink.url,
        OUTBOX_RELAY_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_MS: '20',
        SAGA_STEP_TIMEOUT_MS: '500',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(async () => {
    await app.stop();
    await sink.stop();
  });

  it('when checkouts of every outcome run in both modes with every message delivered twice, then the SMTP server received one welcome email per completed checkout', async () => {
    app.get(Faults).set([{ point: 'relay.push', action: 'duplicate' }]);
    const [pt, jp] = await Promise.all([client.createUser({ country: 'PT' }), client.createUser({ country: 'JP' })]);
    const scenarios = ['choreography', 'orchestration'].flatMap((mode) => [
      { body: { userId: pt.id, mode }, completes: true },
      { body: { userId: pt.id, mode, paymentMethod: 'pm_card_capture_declined' }, completes: false },
      { body: { userId: jp.id, mode, planId: 'premium' }, completes: false },
    ]);

    const ids = await Promise.all(scenarios.map(({ body }) => client.start(body)));
    for (const [index, id] of ids.entries()) {
      expect((await client.until(id, FINAL)).status).toBe(scenarios[index].completes ? 'COMPLETED' : 'FAILED');
    }
    await quiet(app);

    const received = ids.map((id) => sink.withHeader('message-id', welcomeId(id)).length);
    expect(received).toEqual(scenarios.map(({ completes }) => (completes ? 1 : 0)));
    expect(sink.withHeader('message-id', welcomeId(ids[0]))[0]).toMatchObject({ to: [expect.any(String)] });
    expect((await client.invariants(ids)).violations).toEqual([]);
  });

  it('when the orchestrator sends the email command again while the first is still at a slow SMTP server, then the second waits for the first and answers sent, with no failure and one email', async () => {
    // The step's deadline (500 ms) passes while the SMTP server holds its answer: the orchestrator
    // sends the command again under the same step key, and the second delivery meets the first's
    // email row, uncommitted, on the unique (checkout, template) key.
    let release!: () => void;
    sink.holdAnswers = new Promise<void>((resolve) => (release = resolve));
    try {
      const id = await client.start({ userId: (await client.createUser()).id, mode: 'orchestration' });
      const correlation = async () =>
        (
          await app.database.query<{ correlation_id: string }>(
            `SELECT correlation_id FROM checkout.checkouts WHERE id = $1`,
            [id],
          )
        )[0].correlation_id;
      const sends = async () =>
        (
          await app.database.query<{ count: number }>(
            `SELECT count(*)::int AS count FROM outbox.messages
            WHERE type = 'notifications.send-welcome-email.v1' AND correlation_id = $1`,
            [await correlation()],
          )
        )[0].count;
      await eventually(async () => expect(await sends()).toBeGreaterThanOrEqual(2), { timeoutMs: 20_000 });
      release();
      sink.holdAnswers = undefined;

      await client.until(id, ['COMPLETED']);
      await quiet(app);

      const failures = await app.database.query(
        `SELECT type FROM outbox.messages WHERE type = 'notifications.step-failed.v1' AND correlation_id = $1`,
        [await correlation()],
      );
      expect(failures).toEqual([]);
      expect(sink.withHeader('message-id', welcomeId(id))).toHaveLength(1);
      expect((await client.invariants([id])).violations).toEqual([]);
    } finally {
      release();
      sink.holdAnswers = undefined;
    }
  });

  it('when the commit fails after the SMTP hand-over, then the retry finds the hand-over recorded and does not send the email again', async () => {
    // The email left, then its transaction rolled back (here the outbox insert of its
    // announcement fails once): the retry records the email and announces it, from the record of
    // the hand-over, without a second hand-over.
    await app.database.query(`CREATE SEQUENCE IF NOT EXISTS public.welcome_announcements`);
    await app.database.query(`
      CREATE OR REPLACE FUNCTION public.fail_first_welcome_announcement() RETURNS trigger AS $$
      BEGIN
        IF NEW.type = 'notifications.welcome-email-sent.v1' AND nextval('public.welcome_announcements') = 1 THEN
          RAISE EXCEPTION 'planted: the commit fails after the email was handed over';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await app.database.query(`
      CREATE TRIGGER fail_first_welcome_announcement BEFORE INSERT ON outbox.messages
        FOR EACH ROW EXECUTE FUNCTION public.fail_first_welcome_announcement()`);
    try {
      const id = await client.start({ userId: (await client.createUser()).id, mode: 'choreography' });

      await client.until(id, ['COMPLETED']);
      await quiet(app);

      const failed = await app.database.query<{ error: string }>(
        `SELECT error FROM outbox.delivery_attempts
          WHERE consumer = 'notifications.send-welcome-email' AND outcome = 'failed'
            AND correlation_id = (SELECT correlation_id FROM checkout.checkouts WHERE id = $1)`,
        [id],
      );
      expect(failed).toEqual([{ error: expect.stringContaining('planted: the commit fails') }]);
      expect(sink.withHeader('message-id', welcomeId(id))).toHaveLength(1);
      expect((await client.leftTheSystem(id)).welcomeEmails).toBe(1);
      expect((await client.invariants([id])).violations).toEqual([]);
      expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
    } finally {
      await app.database.query(`DROP TRIGGER fail_first_welcome_announcement ON outbox.messages`);
    }
  });
});
