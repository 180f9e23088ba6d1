import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { FORWARD_STEPS } from '../../src/modules/checkout/core/checkout-steps';
import { CheckoutClient } from '../support/checkout-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

/** Where a case stalls its checkout: the step that swallows one message, and how. */
type Stall = {
  step: string;
  action: 'timeout-before' | 'timeout-after';
  buyer?: { country?: string };
  planId?: string;
};

const SWALLOWED: Stall[] = FORWARD_STEPS.flatMap((step) => [
  { step, action: 'timeout-before' as const },
  { step, action: 'timeout-after' as const },
]);
const REFUSED_ON_RESUME: Stall = {
  step: 'content.grant-access',
  action: 'timeout-before',
  buyer: { country: 'JP' },
  planId: 'premium',
};

describe('Resuming a stalled choreographed checkout', () => {
  let app: TestApp;
  let client: CheckoutClient;
  /** The stalled checkouts, by case, made side by side before the tests resume them one by one. */
  const stalledIds = new Map<Stall, Promise<string>>();

  beforeAll(async () => {
    app = await TestApp.start({
      // Every case stalls at once: a checkout that is merely slow on a busy machine must not be
      // taken for a stalled one.
      env: { ...QUIET_ENV, OUTBOX_RELAY_INTERVAL_MS: '50', CHECKOUT_STALLED_AFTER_MS: '3000' },
    });
    client = new CheckoutClient(app);
    // Each rule touches only its own checkout (by its correlation id), so the cases can stall together.
    const cases = [...SWALLOWED, REFUSED_ON_RESUME].map((stall) => ({ stall, correlationId: randomUUID() }));
    app.get(Faults).set(
      cases.map(({ stall, correlationId }) => ({
        point: `step:${stall.step}`,
        action: stall.action,
        times: 1,
        correlationId,
      })),
    );
    for (const { stall, correlationId } of cases) {
      const id = stalled(stall, correlationId);
      id.catch(() => undefined); // its test reports it
      stalledIds.set(stall, id);
    }
    await Promise.allSettled(stalledIds.values());
  }, 120_000);
  afterAll(() => app.stop());

  const resume = (id: string) => client.admin(app.http().post(`/admin/checkouts/${id}/resume`));

  /** A choreographed checkout whose step swallowed one message: the watchdog hands it to a person. */
  const stalled = async ({ step, buyer = {}, planId = 'basic' }: Stall, correlationId: string) => {
    const id = await client.start(
      { userId: (await client.createUser(buyer)).id, planId, mode: 'choreography' },
      { 'X-Correlation-Id': correlationId },
    );
    expect(await client.until(id, ['INTERVENTION'], 60_000)).toMatchObject({ status: 'INTERVENTION', step });
    return id;
  };

  it.each(SWALLOWED.map((stall) => [stall.step, stall.action, stall] as const))(
    'when %s answered nothing (%s) and an operator resumes it, then it completes with one effect of each kind',
    async (step, _action, stall) => {
      const id = await stalledIds.get(stall)!;

      const answer = await resume(id).expect(200);

      expect(answer.body).toEqual({ id, status: 'PENDING', step, resent: expect.stringMatching(/\.v1$/) });
      await client.until(id, ['COMPLETED']);
      await quiet(app);
      expect(await client.leftTheSystem(id)).toEqual({
        authorize: 1,
        capture: 1,
        void: 0,
        refund: 0,
        welcomeEmails: 1,
      });
      expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
      expect((await client.invariants([id])).violations).toEqual([]);
      const timeline = await client.timeline(id);
      expect(timeline.filter((e) => e.type === 'checkout.checkout-resumed.v1')).toEqual([
        expect.objectContaining({
          kind: 'event',
          detail: expect.objectContaining({ step, resent: answer.body.resent }),
        }),
      ]);
      expect(timeline.filter((e) => e.kind === 'command' && e.type === answer.body.resent)).toHaveLength(1);
    },
  );

  it('when a resumed participant refuses (the plan is not licensed), then the checkout is undone and FAILED with nothing held', async () => {
    const id = await stalledIds.get(REFUSED_ON_RESUME)!;

    await resume(id).expect(200);

    expect(await client.until(id, ['FAILED'])).toMatchObject({ failureReason: 'not-licensed' });
    await quiet(app);
    expect(await client.leftTheSystem(id)).toEqual({ authorize: 1, capture: 0, void: 1, refund: 0, welcomeEmails: 0 });
    expect((await client.invariants([id])).violations).toEqual([]);
  });

  it('when the checkout is not in INTERVENTION, orchestrated, unknown or malformed, then 409, 409, 404, 400, and nothing is sent', async () => {
    const user = await client.createUser();
    const completed = await client.start({ userId: user.id, mode: 'choreography' });
    const orchestrated = await client.start({ userId: user.id, mode: 'orchestration' });
    await client.until(completed, ['COMPLETED']);
    await client.until(orchestrated, ['COMPLETED']);
    const [{ n: before }] = await app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox.messages`);

    expect((await resume(completed).expect(409)).body).toMatchObject({
      statusCode: 409,
      reason: 'not-in-intervention',
      checkoutStatus: 'COMPLETED',
    });
    expect((await resume(orchestrated).expect(409)).body).toMatchObject({
      statusCode: 409,
      reason: 'not-choreographed',
    });
    await resume(randomUUID()).expect(404);
    await resume('not-a-uuid').expect(400);
    await app.http().post(`/admin/checkouts/${completed}/resume`).expect(401);

    const [{ n: after }] = await app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox.messages`);
    expect(after).toBe(before);
  });
});
