import { Faults } from '../../src/infra/faults/faults';
import { CheckoutClient } from './checkout-client';
import { QUIET_ENV, quiet } from './quiet';
import { STEP_FAULT_CASES } from './step-fault-cases';
import { TestApp } from './test-app';

/**
 * The step-fault matrix for one coordination style: each case injects its fault, runs one
 * checkout to the end, and checks the outcome, what every module holds, and the invariants.
 */
export function describeStepFaults(mode: 'choreography' | 'orchestration'): void {
  describe(`Step faults, ${mode}`, () => {
    let app: TestApp;
    let client: CheckoutClient;

    beforeAll(async () => {
      app = await TestApp.start({
        env: {
          ...QUIET_ENV,
          OUTBOX_RELAY_INTERVAL_MS: '50',
          OUTBOX_ATTEMPTS: '3',
          OUTBOX_BACKOFF_MS: '20',
          // Long enough that a busy machine does not turn an answer into silence (and a resend).
          SAGA_STEP_TIMEOUT_MS: '600',
          SAGA_STEP_ATTEMPTS: '3',
          SAGA_PIVOT_ATTEMPTS: '3',
          SAGA_COMPENSATION_ATTEMPTS: '3',
          SAGA_SWEEP_INTERVAL_MS: '50',
          CHECKOUT_STALLED_AFTER_MS: '1500',
        },
      });
      client = new CheckoutClient(app);
    });
    afterEach(() => app.get(Faults).clear());
    afterAll(() => app.stop());

    it.each(STEP_FAULT_CASES.map((c) => [c.step, c.action, c.times, c[mode]] as const))(
      'when %s answers %s %s, then it ends as its step class says and the invariants hold',
      async (step, action, times, expected) => {
        app.get(Faults).set([{ point: `step:${step}`, action, ...(times === 'once' ? { times: 1 } : {}) }]);
        const user = await client.createUser();

        const id = await client.start({ userId: user.id, mode });

        const checkout = await client.until(id, ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'], 30_000);
        const { status, ...effects } = expected;
        await quiet(app);
        expect({ status: checkout.status, ...(await client.effects(id)) }).toEqual({ status, ...effects });
        // Counted where the effects leave the system, once nothing more can happen: a 2 would show.
        const left = await client.leftTheSystem(id);
        expect({ capture: left.capture, welcomeEmails: left.welcomeEmails }).toEqual({
          capture: effects.payment === 'captured' ? 1 : 0,
          welcomeEmails: effects.emails,
        });
        expect(left.authorize).toBeLessThanOrEqual(1);
        expect((await client.invariants([id])).violations).toEqual([]);
      },
    );
  });
}
