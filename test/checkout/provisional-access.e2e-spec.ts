import { Faults } from '../../src/infra/faults/faults';
import { type Buyer, CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];
const MODES = ['choreography', 'orchestration'] as const;
/** The consumer that captures, in each mode. */
const CAPTURING_CONSUMER = {
  choreography: 'billing.capture-payment',
  orchestration: 'billing.capture-payment-command',
} as const;

/**
 * The semantic lock of ADR 0051: access granted while the money is only held is provisional, shown
 * to the buyer as such and never as access they can use; the capture makes it active, a declined
 * capture withdraws it. Read as the buyer reads it, through GET /users/:id/access.
 */
describe('Provisional access, until the capture', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        OUTBOX_RELAY_INTERVAL_MS: '50',
        // The capture is held back by its consumer failing: retried soon, for long enough to look.
        OUTBOX_ATTEMPTS: '10',
        OUTBOX_BACKOFF_MS: '100',
        SAGA_STEP_TIMEOUT_MS: '1000',
        SAGA_PIVOT_ATTEMPTS: '10',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  const accessOf = async (buyer: Buyer) =>
    (await client.as(buyer.id, app.http().get(`/users/${buyer.id}/access`)).expect(200)).body;

  /** A checkout whose capture is held back (its consumer fails) until the buyer has seen the grant. */
  const heldAtTheCapture = async (mode: (typeof MODES)[number], paymentMethod: string) => {
    app.get(Faults).set([{ point: `consumer:${CAPTURING_CONSUMER[mode]}`, action: 'fail' }]);
    const buyer = await client.createUser();
    const id = await client.start({ userId: buyer.id, mode, paymentMethod });
    const seen = await eventually(
      async () => {
        expect(await client.get(id)).toMatchObject({ status: 'PENDING', step: 'billing.capture-payment' });
        return accessOf(buyer);
      },
      { what: 'the checkout to wait for its capture' },
    );
    app.get(Faults).clear();
    return { buyer, id, seen };
  };

  it.each(MODES)(
    'when the capture is pending (%s), then the buyer sees the plan as provisional and may not watch; once captured, active',
    async (mode) => {
      const { buyer, id, seen } = await heldAtTheCapture(mode, 'pm_card_ok');

      expect(seen).toEqual([{ planId: 'basic', access: 'provisional', mayWatch: false }]);
      expect(await client.until(id, FINAL)).toMatchObject({ status: 'COMPLETED' });
      expect(await accessOf(buyer)).toEqual([{ planId: 'basic', access: 'active', mayWatch: true }]);
      await quiet(app);
      expect((await client.invariants([id])).violations).toEqual([]);
    },
  );

  it.each(MODES)(
    'when the pending capture is then declined (%s), then the buyer never could watch, and the provisional access is withdrawn',
    async (mode) => {
      const { buyer, id, seen } = await heldAtTheCapture(mode, 'pm_card_capture_declined');

      expect(seen).toEqual([{ planId: 'basic', access: 'provisional', mayWatch: false }]);
      expect(await client.until(id, FINAL)).toMatchObject({ status: 'FAILED', failureReason: 'capture-declined' });
      expect(await accessOf(buyer)).toEqual([]);
      expect(await client.effects(id)).toEqual({ payment: 'voided', entitlement: 'revoked', emails: 0 });
      await quiet(app);
      expect((await client.invariants([id])).violations).toEqual([]);
    },
  );

  it('when a checkout completes, then its timeline shows the access activated after the capture and before the email', async () => {
    for (const mode of MODES) {
      const id = await client.start({ userId: (await client.createUser()).id, mode });
      await client.until(id, ['COMPLETED']);

      const events = (await client.timeline(id)).filter((e) => e.kind === 'event').map((e) => e.type);

      const at = (type: string) => events.indexOf(type);
      const order = [
        'content.access-granted.v1',
        'billing.payment-captured.v1',
        'content.access-activated.v1',
        'notifications.welcome-email-sent.v1',
      ];
      expect(events).toEqual(expect.arrayContaining(order));
      expect(at('content.access-granted.v1')).toBeLessThan(at('billing.payment-captured.v1'));
      expect(at('billing.payment-captured.v1')).toBeLessThan(at('content.access-activated.v1'));
      expect(at('content.access-activated.v1')).toBeLessThan(at('notifications.welcome-email-sent.v1'));
    }
  });
});
