import { CheckoutClient } from '../support/checkout-client';
import { NO_EFFECTS as NONE, RunningFiscalAuthority } from '../support/fiscal-authority-service';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

/**
 * A refund reverses the checkout's invoice at the fiscal authority, a service of its own over
 * HTTP, by the clock: cancelled inside the authority's window, reversed by a return note after
 * it. Counted at the authority, once the app is quiet.
 */
describe('A refund reverses the invoice at the fiscal authority', () => {
  /** An app and an authority with these windows, in seconds. */
  async function start(windows: { app: number; authority: number }) {
    const authority = await RunningFiscalAuthority.start({ cancelWindowSeconds: windows.authority });
    const app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        FISCAL_AUTHORITY_URL: authority.url,
        FISCAL_AUTHORITY_TIMEOUT_MS: '500',
        INVOICE_CANCEL_WINDOW_SECONDS: String(windows.app),
        OUTBOX_RELAY_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_MS: '50',
        OUTBOX_ATTEMPTS: '12',
      },
    });
    return { authority, app, client: new CheckoutClient(app) };
  }
  type Rig = Awaited<ReturnType<typeof start>>;

  /** A completed checkout: its invoice was issued on the way (the checkout's invoice step). */
  async function invoicedCheckout({ client }: Rig): Promise<string> {
    const id = await client.start({ userId: (await client.createUser()).id });
    await client.until(id, ['COMPLETED']);
    return id;
  }

  async function refund({ app, client }: Rig, id: string) {
    await client.admin(app.http().post(`/admin/payments/${id}/refund`)).expect(200);
  }

  async function outcome(rig: Rig, id: string) {
    await quiet(rig.app);
    await rig.authority.untilAnswered();
    const [invoice] = await rig.app.database.query<{ status: string }>(
      `SELECT status FROM billing.invoices WHERE checkout_id = $1`,
      [id],
    );
    const events = (await rig.client.timeline(id))
      .filter((entry) => entry.kind === 'event' && String(entry.type).startsWith('billing.invoice-'))
      .map((entry) => entry.type);
    return { atTheAuthority: await rig.authority.effects(id), ours: invoice?.status, events };
  }

  describe('with a window of a minute', () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await start({ app: 60, authority: 60 });
    });
    afterEach(() => rig.authority.clearFaults());
    afterAll(async () => {
      await rig.app.stop();
      await rig.authority.stop();
    });

    it('when a refund comes inside the window (twice), then the invoice is cancelled once', async () => {
      const id = await invoicedCheckout(rig);

      await refund(rig, id);
      await refund(rig, id);

      expect(await outcome(rig, id)).toEqual({
        atTheAuthority: { ...NONE, invoice: 1, cancellation: 1 },
        ours: 'cancelled',
        events: ['billing.invoice-issued.v1', 'billing.invoice-cancelled.v1'],
      });
    });

    it('when the authority is down at the refund, then the cancel waits for it, and happens once', async () => {
      const id = await invoicedCheckout(rig);
      await rig.authority.fault({ fault: 'down', seconds: 2, mode: '503' });

      await refund(rig, id);

      expect(await outcome(rig, id)).toEqual({
        atTheAuthority: { ...NONE, invoice: 1, cancellation: 1 },
        ours: 'cancelled',
        events: ['billing.invoice-issued.v1', 'billing.invoice-cancelled.v1'],
      });
    });

    it('when the cancel is answered after the client gave up, then it is asked again under its key, and happens once', async () => {
      const id = await invoicedCheckout(rig);
      await rig.authority.fault({ fault: 'late', operation: 'cancellation', delayMs: 1_500 });

      await refund(rig, id);

      expect(await outcome(rig, id)).toEqual({
        atTheAuthority: { ...NONE, invoice: 1, cancellation: 1 },
        ours: 'cancelled',
        events: ['billing.invoice-issued.v1', 'billing.invoice-cancelled.v1'],
      });
    });
  });

  describe('with a window of a second', () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await start({ app: 1, authority: 1 });
    });
    afterAll(async () => {
      await rig.app.stop();
      await rig.authority.stop();
    });

    it('when a refund comes after the window, then a return note reverses the invoice', async () => {
      const id = await invoicedCheckout(rig);
      await new Promise((resolve) => setTimeout(resolve, 1_100));

      await refund(rig, id);

      expect(await outcome(rig, id)).toEqual({
        atTheAuthority: { ...NONE, invoice: 1, returnNote: 1 },
        ours: 'reversed',
        events: ['billing.invoice-issued.v1', 'billing.invoice-reversed.v1'],
      });
    });
  });

  describe("when the app's window is longer than the authority's", () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await start({ app: 60, authority: 1 });
    });
    afterAll(async () => {
      await rig.app.stop();
      await rig.authority.stop();
    });

    it('when the authority refuses the cancel as late, then a return note reverses the invoice', async () => {
      const id = await invoicedCheckout(rig);
      await new Promise((resolve) => setTimeout(resolve, 1_100));

      await refund(rig, id);

      expect(await outcome(rig, id)).toEqual({
        atTheAuthority: { ...NONE, invoice: 1, returnNote: 1 },
        ours: 'reversed',
        events: ['billing.invoice-issued.v1', 'billing.invoice-reversed.v1'],
      });
    });
  });
});
