import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { RunningFiscalAuthority } from '../support/fiscal-authority-service';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

const MODES = ['choreography', 'orchestration'] as const;

/**
 * The invoice, a step of the checkout after the capture: asked of the fiscal authority (a service
 * of its own, over HTTP) under the step's key, retried while the authority is down, never undone
 * by a technical failure, and handed to a person once it has been down past the bound. Counted at
 * the authority, once the app is quiet.
 */
describe('The checkout invoices the sale at the fiscal authority', () => {
  let authority: RunningFiscalAuthority;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    authority = await RunningFiscalAuthority.start();
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        FISCAL_AUTHORITY_URL: authority.url,
        FISCAL_AUTHORITY_TIMEOUT_MS: '500',
        FISCAL_AUTHORITY_ATTEMPTS: '2',
        OUTBOX_RELAY_INTERVAL_MS: '50',
        // Any other consumer gets two attempts; the invoice's waits out the authority: eight
        // attempts, the waits doubling from 200 ms to a second at most, about 5 s in all here.
        OUTBOX_ATTEMPTS: '2',
        OUTBOX_BACKOFF_MS: '200',
        OUTBOX_OUTAGE_ATTEMPTS: '8',
        OUTBOX_OUTAGE_MAX_WAIT_MS: '1000',
        // The saga's outage policy: eight sends, a second apart at most, where any other step gets two.
        SAGA_STEP_TIMEOUT_MS: '1000',
        SAGA_STEP_ATTEMPTS: '2',
        SAGA_OUTAGE_ATTEMPTS: '8',
        SAGA_OUTAGE_MAX_WAIT_MS: '1000',
        SAGA_SWEEP_INTERVAL_MS: '50',
        // The choreography's watch, short: at the invoice it waits as long as the consumer does.
        CHECKOUT_STALLED_AFTER_MS: '2000',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => authority.clearFaults());
  afterAll(async () => {
    await app?.stop();
    await authority?.stop();
  });

  const checkout = async (mode: string) => client.start({ userId: (await client.createUser()).id, mode });

  /** What the checkout came to, its invoice at the authority and in billing, and its emails, once quiet. */
  async function outcome(id: string) {
    await quiet(app);
    await authority.untilAnswered();
    const [invoice] = await app.database.query<{ status: string }>(
      `SELECT status FROM billing.invoices WHERE checkout_id = $1`,
      [id],
    );
    return {
      status: (await client.get(id)).status,
      atTheAuthority: (await authority.effects(id)).invoice,
      ours: invoice?.status,
      left: await client.leftTheSystem(id),
    };
  }

  it.each(MODES)(
    'when a checkout in %s completes, then its invoice is issued once, before the welcome',
    async (mode) => {
      const id = await checkout(mode);
      await client.until(id, ['COMPLETED']);

      const types = (await client.timeline(id)).map((entry) => String(entry.type));
      expect(types.indexOf('billing.invoice-issued.v1')).toBeGreaterThan(types.indexOf('content.access-activated.v1'));
      expect(types.indexOf('billing.invoice-issued.v1')).toBeLessThan(
        types.indexOf('notifications.welcome-email-sent.v1'),
      );
      expect(await outcome(id)).toMatchObject({ status: 'COMPLETED', atTheAuthority: 1, ours: 'issued' });
    },
  );

  it.each(MODES)(
    'when the authority is down for a while, then a checkout in %s waits for it and completes, invoiced once',
    async (mode) => {
      await authority.fault({ fault: 'down', seconds: 4, mode: '503' });
      const id = await checkout(mode);

      // Watched all along: no person is asked while the invoice's consumer waits (the watch's 2 s
      // are up early in the outage).
      const seen = new Set<unknown>();
      await eventually(
        async () => {
          const { status } = await client.get(id);
          seen.add(status);
          expect(status).toBe('COMPLETED');
        },
        { timeoutMs: 30_000, intervalMs: 100, what: `checkout ${id} to complete` },
      );

      expect([...seen].filter((status) => status !== 'PENDING' && status !== 'COMPLETED')).toEqual([]);
      expect(await outcome(id)).toMatchObject({ status: 'COMPLETED', atTheAuthority: 1, ours: 'issued' });
    },
  );

  it.each(MODES)(
    'when the authority answers a checkout in %s after the client gave up, then it is asked again under its key, and invoices once',
    async (mode) => {
      await authority.fault({ fault: 'late', operation: 'invoice', delayMs: 1_200 });
      const id = await checkout(mode);

      await client.until(id, ['COMPLETED'], 30_000);

      expect(await outcome(id)).toMatchObject({ status: 'COMPLETED', atTheAuthority: 1, ours: 'issued' });
    },
  );

  it.each(MODES)(
    'when the authority stays down past the bound, then a checkout in %s waits for a person with the money taken, and completes once resumed',
    async (mode) => {
      await authority.fault({ fault: 'down', seconds: 600, mode: '503' });
      const id = await checkout(mode);

      const stuck = await client.until(id, ['INTERVENTION', 'COMPLETED', 'FAILED'], 60_000);
      expect(stuck).toMatchObject({ status: 'INTERVENTION', step: 'billing.issue-invoice' });
      // Never compensated: the money stays taken and the access the buyer's, with no invoice yet.
      expect(await outcome(id)).toMatchObject({
        atTheAuthority: 0,
        ours: undefined,
        left: { capture: 1, void: 0, refund: 0, welcomeEmails: 0 },
      });
      if (mode === 'choreography') {
        // Given up after the invoice's own attempts (OUTBOX_OUTAGE_ATTEMPTS), not the transport's two.
        const letters = await app.database.query<{ consumer: string; attempts: number }>(
          `SELECT consumer, attempts FROM outbox.dead_letters WHERE correlation_id = $1`,
          [stuck.correlationId],
        );
        expect(letters).toEqual([{ consumer: 'billing.issue-invoice', attempts: 8 }]);
      }

      await authority.clearFaults();
      // A person's way on, in each mode: the saga retried, the choreographed checkout resumed.
      const onwards = mode === 'orchestration' ? `/admin/sagas/${id}/retry` : `/admin/checkouts/${id}/resume`;
      await client.admin(app.http().post(onwards)).expect((response) => expect(response.status).toBeLessThan(300));
      await client.until(id, ['COMPLETED'], 30_000);

      expect(await outcome(id)).toMatchObject({
        status: 'COMPLETED',
        atTheAuthority: 1,
        ours: 'issued',
        left: { capture: 1, void: 0, refund: 0, welcomeEmails: 1 },
      });
    },
  );

  it('when the authority does not answer, then the checker gives no report rather than one that never counted the invoices', async () => {
    const id = await checkout('choreography');
    await client.until(id, ['COMPLETED']);
    await quiet(app);
    // Refusing connections, its listing too; the outage ends by its own clock.
    await authority.fault({ fault: 'down', seconds: 2, mode: 'refuse' });

    const response = await client.admin(app.http().get('/admin/invariants'));

    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ checkoutId: expect.any(String) });
    expect(response.body.message).toContain('fiscal authority');
    await eventually(async () => expect((await client.admin(app.http().get('/admin/invariants'))).status).toBe(200), {
      timeoutMs: 15_000,
      what: 'the authority to answer again',
    });
  });
});
