import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { RunningCardGateway } from './card-gateway-service';
import { CheckoutClient } from './checkout-client';
import { QUIET_ENV, quiet } from './quiet';
import { invoicesAt } from './at-the-participants';
import { runAuthorityUrl } from './run-participants';
import { type Expected, STEP_FAULT_CASES } from './step-fault-cases';
import { TestApp } from './test-app';

const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];

/** What one case's checkout came to, once nothing more could happen; or why it did not end. */
type Outcome =
  | {
      status: unknown;
      effects: Omit<Expected, 'status'>;
      left: { authorize: number; capture: number; welcomeEmails: number };
      /** Invoices the fiscal authority filed under the checkout. */
      invoices: number;
      violations: unknown[];
    }
  | { error: unknown };

/**
 * The step-fault matrix for one coordination style: each case injects its fault into one checkout
 * of its own, runs it to the end, and checks the outcome, what every module holds, and the
 * invariants. The cases run side by side in one app, each rule naming its checkout's correlation
 * id, so that a rule on a step touches only its own case; the checks run once the whole app is
 * quiet, and the effects are counted where they leave the system: the money at the card gateway
 * service, the invoices at the fiscal authority, the emails at their hand-over.
 */
export function describeStepFaults(mode: 'choreography' | 'orchestration'): void {
  describe(`Step faults, ${mode}`, () => {
    let app: TestApp;
    let gateway: RunningCardGateway;
    const outcomes: Outcome[] = [];

    beforeAll(async () => {
      gateway = await RunningCardGateway.start();
      app = await TestApp.start({
        env: {
          ...QUIET_ENV,
          CARD_GATEWAY_URL: gateway.url,
          OUTBOX_RELAY_INTERVAL_MS: '50',
          OUTBOX_ATTEMPTS: '3',
          OUTBOX_BACKOFF_MS: '20',
          OUTBOX_OUTAGE_ATTEMPTS: '3',
          OUTBOX_OUTAGE_MAX_WAIT_MS: '4000',
          // Long enough that a busy machine running every case at once does not turn an answer
          // into silence (and a resend), or a slow step into a stalled checkout.
          SAGA_STEP_TIMEOUT_MS: '2000',
          SAGA_STEP_ATTEMPTS: '3',
          SAGA_PIVOT_ATTEMPTS: '3',
          SAGA_COMPENSATION_ATTEMPTS: '3',
          SAGA_OUTAGE_ATTEMPTS: '3',
          SAGA_OUTAGE_MAX_WAIT_MS: '4000',
          SAGA_SWEEP_INTERVAL_MS: '50',
          CHECKOUT_STALLED_AFTER_MS: '5000',
        },
      });
      const client = new CheckoutClient(app);
      const runs = STEP_FAULT_CASES.map((c) => ({ ...c, correlationId: randomUUID() }));
      app.get(Faults).set(
        runs.map(({ step, action, times, correlationId }) => ({
          point: `step:${step}`,
          action,
          correlationId,
          ...(times === 'once' ? { times: 1 } : {}),
        })),
      );
      const ended = await Promise.all(
        runs.map(async ({ correlationId }) => {
          const user = await client.createUser();
          const id = await client.start({ userId: user.id, mode }, { 'X-Correlation-Id': correlationId });
          return client.until(id, FINAL, 90_000).then(
            (checkout) => ({ id, status: checkout.status }),
            (error: unknown) => ({ id, error }),
          );
        }),
      );
      await quiet(app, { timeoutMs: 60_000 });
      for (const run of ended) {
        if ('error' in run) {
          outcomes.push({ error: run.error });
          continue;
        }
        const left = await client.leftTheSystem(run.id);
        outcomes.push({
          status: run.status,
          effects: await client.effects(run.id),
          left,
          invoices: await invoicesAt(runAuthorityUrl(), run.id),
          violations: (await client.invariants([run.id])).violations,
        });
      }
    }, 240_000);
    afterAll(async () => {
      await app?.stop();
      await gateway?.stop();
    });

    it.each(STEP_FAULT_CASES.map((c, index) => [c.step, c.action, c.times, index, c[mode]] as const))(
      'when %s answers %s %s, then it ends as its step class says and the invariants hold',
      (_step, _action, _times, index, expected) => {
        const outcome = outcomes[index];
        if (!outcome) throw new Error('The matrix did not run');
        if ('error' in outcome) throw outcome.error;
        const { status, invoices = status === 'COMPLETED' ? 1 : 0, ...effects } = expected;
        expect({ status: outcome.status, ...outcome.effects }).toEqual({ status, ...effects });
        expect(outcome.invoices).toBe(invoices);
        // Counted where the effects leave the system, once nothing more can happen: a 2 would show.
        expect({ capture: outcome.left.capture, welcomeEmails: outcome.left.welcomeEmails }).toEqual({
          capture: effects.payment === 'captured' ? 1 : 0,
          welcomeEmails: effects.emails,
        });
        expect(outcome.left.authorize).toBeLessThanOrEqual(1);
        expect(outcome.violations).toEqual([]);
      },
    );
  });
}
