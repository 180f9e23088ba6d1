import { Faults, type FaultRule } from '../../src/infra/faults/faults';
import { LogicalRelay } from '../../src/infra/outbox/relaying/logical-relay';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';
import { approveUnrecorded } from '../support/unrecorded-authorization';

/**
 * Hole 1 of issue 8: the gateway approves an authorization whose payment row never commits (the
 * process dies, or the transaction fails, after the gateway call). The saga gives the step up
 * and voids it; the void finds no row of ours, and must still reach the gateway.
 *
 * The approval is the test's own call, made while the step is out: after the saga sent it (an
 * attempt cannot call the gateway before), and before the void may run. Billing's void fails
 * until the approval exists, and is retried after, so that the void comes after the approval
 * however long the test's own call takes. Without these waits the test could report money held
 * that its own order left held: a void that ran first (the saga gives the step up about a second
 * after it sent it) found nothing to void, or a saga that gave up an earlier step never sent the
 * authorization nor its void.
 */
describe('An authorization the gateway approved but we never recorded', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        OUTBOX_RELAY_INTERVAL_MS: '50',
        SAGA_STEP_TIMEOUT_MS: '300',
        SAGA_STEP_ATTEMPTS: '2',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
    // The saga's deadlines here are short, for billing's silence, and they run for every step: a
    // logical relay still starting (its lock, its slot, its first claim) would hold the first step's
    // command past them, and the saga would give up before billing was ever asked.
    if (process.env.TEST_OUTBOX_RELAY === 'logical') {
      await eventually(() => expect(app.get(LogicalRelay).reading).toBe(true), {
        timeoutMs: 30_000,
        what: 'the reader',
      });
    }
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  it('when the saga voids an authorization it has no record of, then the void reaches the gateway and no money is held', async () => {
    // Billing never answers, so the saga gives the authorization up and voids it...
    const silentBilling: FaultRule = { point: 'step:billing.authorize-payment', action: 'timeout-before' };
    // ...and the void waits until the gateway has approved it.
    const voidLater: FaultRule = { point: 'compensation:billing.void-authorization', action: 'fail' };
    app.get(Faults).set([silentBilling, voidLater]);
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, mode: 'orchestration' });
    await client.untilSagaSent(id, 'billing.authorize-payment');
    // The gateway approves an attempt whose commit never happened, under the step's key.
    await approveUnrecorded(app, id);
    app.get(Faults).set([silentBilling]);

    await client.until(id, ['FAILED']);
    await quiet(app);

    expect((await client.invariants([id])).violations).toEqual([]);
    expect(await client.effects(id)).toEqual({ payment: 'voided', entitlement: undefined, emails: 0 });
    expect(await client.leftTheSystem(id)).toEqual({
      authorize: 1,
      capture: 0,
      void: 1,
      refund: 0,
      welcomeEmails: 0,
    });
  });
});
