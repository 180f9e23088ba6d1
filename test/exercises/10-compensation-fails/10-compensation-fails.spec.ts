import { Faults } from '../../../src/infra/faults/faults';
import type { InvariantReport } from '../../../src/operations/invariants';
import { moneyAt } from '../../support/at-the-participants';
import { CheckoutClient } from '../../support/checkout-client';
import { eventually } from '../../support/eventually';
import { quiet } from '../../support/quiet';
import { runGatewayUrl } from '../../support/run-participants';
import { EXERCISE_ENV } from '../support/exercise-app';
import { TestApp } from '../../support/test-app';
import { invariant, narrate, narrateTimeline } from '../support/track';
import { CompensationFailsWiring, GATEWAY_VOID_FAULT } from './compensation-fails.wiring';

/** How long the checkout is given to end, or to reach a person, while the gateway is down. */
const SETTLE_MS = 12_000;

/**
 * Exercise 10 (lesson 001, "compensação que assume que sempre funciona" and the vehicle held for
 * three days; lesson 004, "compensação não tem desistência"): a compensation that fails. A
 * choreographed checkout whose access is refused must be undone by billing's void, and the card
 * gateway refuses every void until a person has stepped in.
 */
describe('Exercise 10: a compensation that fails', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({
      imports: [CompensationFailsWiring],
      // Four tries of a failing delivery, 50, 100 and 200 ms apart, then a dead letter.
      env: { ...EXERCISE_ENV, OUTBOX_ATTEMPTS: '4' },
    });
    client = new CheckoutClient(app);
  });
  afterAll(async () => {
    app?.get(Faults).clear(); // whatever still waits for the gateway finishes, so the app can stop
    await app?.stop();
  });

  /** The checkout's status once it has left `from`, or at the deadline. */
  async function statusAfter(id: string, from: string[], timeoutMs: number): Promise<string> {
    let status = '';
    await eventually(
      async () => {
        status = String((await client.get(id)).status);
        return !from.includes(status);
      },
      { timeoutMs, intervalMs: 100 },
    ).catch(() => undefined);
    return status;
  }

  /** Authorizations the gateway approved under the checkout that nothing followed: money held on the card. */
  async function heldOnTheCard(id: string): Promise<number> {
    return (await moneyAt(runGatewayUrl(), id)).held;
  }

  async function checker(): Promise<InvariantReport> {
    return (await client.admin(app.http().get('/admin/invariants')).expect(200)).body as InvariantReport;
  }

  it('when the gateway cannot release the hold, then the money is never held silently: a person is asked, shown what is at stake, and their retry releases it', async () => {
    const buyer = await client.createUser({ country: 'JP' });
    app.get(Faults).set([{ point: GATEWAY_VOID_FAULT, action: 'fail' }]);
    narrate(`armed: the card gateway answers every void with an error (${GATEWAY_VOID_FAULT})`);
    narrate('a buyer in Japan orders the premium plan: content refuses, and billing must release the hold');

    const startedAt = Date.now();
    const id = await client.start({ userId: buyer.id, planId: 'premium', mode: 'choreography' });
    const status = await statusAfter(id, ['PENDING'], SETTLE_MS);
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const atStake = (await checker()).atStake.find((stake) => stake.checkoutId === id);
    const held = await heldOnTheCard(id);
    narrate(`${seconds} s later, the gateway still down: checkout ${status}, ${held} hold(s) on the card`);
    if (atStake) narrate(`the checker shows the person what is at stake: ${JSON.stringify(atStake)}`);
    invariant(
      'while the gateway cannot release the hold, the money is never held silently: the checkout waits for a ' +
        'person (INTERVENTION), who is shown the held money',
      { status, heldOnTheCard: held, heldShownToAPerson: atStake?.heldAuthorizations ?? 0 },
      { status: 'INTERVENTION', heldOnTheCard: 1, heldShownToAPerson: 1 },
    );

    app.get(Faults).clear();
    narrate('the gateway is back; a person resumes the checkout (POST /admin/checkouts/:id/resume)');
    await client.admin(app.http().post(`/admin/checkouts/${id}/resume`)).expect(200);
    const after = await statusAfter(id, ['PENDING', 'INTERVENTION'], SETTLE_MS);
    await quiet(app);
    const violations = (await checker()).violations
      .filter((violation) => violation.checkoutId === id)
      .map((violation) => `${violation.rule}: ${violation.description}`);
    await narrateTimeline(app, id);
    invariant(
      "after the person's retry the hold is released and the checkout has failed cleanly (the checker's findings)",
      { status: after, heldOnTheCard: await heldOnTheCard(id), violations },
      { status: 'FAILED', heldOnTheCard: 0, violations: [] },
    );
  }, 90_000);
});
