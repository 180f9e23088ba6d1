import { Faults } from '../../../src/infra/faults/faults';
import type { InvariantReport } from '../../../src/operations/invariants';
import { CheckoutClient } from '../../support/checkout-client';
import { quiet } from '../../support/quiet';
import { EXERCISE_ENV, TestApp } from '../support/exercise-app';
import { invariant, narrate, narrateTimeline } from '../support/track';
import { TheTombstoneWiring } from './the-tombstone.wiring';

const HELD_BACK = 'consumer:content.grant-access-command';

/**
 * Exercise 11 (lesson 004, "a compensação pode chegar antes da ação"; lesson 002, technique 3,
 * "verificação de estado"): the tombstone. Orchestrated checkouts run through the real saga, with
 * your decisions inside content.
 */
describe('Exercise 11: the tombstone', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({
      imports: [TheTombstoneWiring],
      env: {
        ...EXERCISE_ENV,
        // The saga waits a second for an answer, then two, then gives the step up and undoes it.
        SAGA_STEP_TIMEOUT_MS: '1000',
        SAGA_STEP_ATTEMPTS: '2',
        SAGA_SWEEP_INTERVAL_MS: '100',
        // The held-back grant is retried (50 ms, then twice as long each time), never given up on.
        OUTBOX_ATTEMPTS: '12',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app?.stop());

  /** The checker's findings about one checkout, in its words, once the app is quiet. */
  async function brokenRules(checkoutId: string): Promise<string[]> {
    await quiet(app);
    const report = (await client.admin(app.http().get('/admin/invariants')).expect(200)).body as InvariantReport;
    return report.violations.filter((v) => v.checkoutId === checkoutId).map((v) => `${v.rule}: ${v.description}`);
  }

  it('when the revoke arrives before the grant it undoes, then the late grant gives no access to a checkout that did not sell', async () => {
    const buyer = await client.createUser();
    app.get(Faults).set([{ point: HELD_BACK, action: 'fail' }]);
    narrate(`armed: content fails every delivery of "grant access" (${HELD_BACK}); the queue keeps retrying it`);

    const id = await client.start({ userId: buyer.id, mode: 'orchestration' });
    const { status } = await client.until(id, ['FAILED', 'COMPLETED', 'INTERVENTION'], 30_000);
    narrate(`the saga heard nothing from content, gave the grant up and undid the checkout: ${status}`);
    app.get(Faults).clear();
    narrate('content recovers: the grant it was asked for goes through now, after the revoke');

    const broken = await brokenRules(id);
    await narrateTimeline(app, id);
    const handled = (await client.timeline(id)).filter((e) => e.kind === 'handled');
    const revokedAt = handled.find((e) => e.type === 'content.revoke-access.v1')?.at as string | undefined;
    const lateGrant = handled.find(
      (e) => e.type === 'content.grant-access.v1' && revokedAt !== undefined && String(e.at) > revokedAt,
    );
    // Without a grant after the revoke this run showed nothing: the exercise's fault, not the answer's.
    invariant(
      '(the setup) the saga undid the checkout, and the held-back grant arrived after the revoke',
      [status, Boolean(lateGrant)],
      ['FAILED', true],
    );
    invariant(
      "no access for a checkout that did not sell, whichever of grant and revoke arrives first (the checker's findings)",
      broken,
      [],
    );
  }, 90_000);

  it('when the capture is declined after access was granted, then the revoke takes the access back', async () => {
    const buyer = await client.createUser();

    const id = await client.start({
      userId: buyer.id,
      mode: 'orchestration',
      paymentMethod: 'pm_card_capture_declined',
    });

    const { status } = await client.until(id, ['FAILED', 'COMPLETED', 'INTERVENTION']);
    invariant('a checkout whose capture is declined fails', status, 'FAILED');
    invariant("the revoke takes back the access that was granted (the checker's findings)", await brokenRules(id), []);
  });

  it('when nothing is late, then the checkout completes with access', async () => {
    const buyer = await client.createUser();

    const id = await client.start({ userId: buyer.id, mode: 'orchestration' });

    const { status } = await client.until(id, ['FAILED', 'COMPLETED', 'INTERVENTION']);
    invariant('a checkout with nothing late completes', status, 'COMPLETED');
    invariant("it has its access, its capture and its email (the checker's findings)", await brokenRules(id), []);
  });
});
