import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { FORWARD_STEPS } from '../../src/modules/checkout/core/checkout-steps';
import { CheckoutClient } from '../support/checkout-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

describe('Resuming a stalled choreographed checkout', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({
      env: { ...QUIET_ENV, OUTBOX_RELAY_INTERVAL_MS: '50', CHECKOUT_STALLED_AFTER_MS: '1500' },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  const resume = (id: string) => client.admin(app.http().post(`/admin/checkouts/${id}/resume`));

  /** A choreographed checkout whose step swallowed one message: the watchdog hands it to a person. */
  const stalled = async (step: string, action: 'timeout-before' | 'timeout-after', buyer = {}, planId = 'basic') => {
    app.get(Faults).set([{ point: `step:${step}`, action, times: 1 }]);
    const id = await client.start({ userId: (await client.createUser(buyer)).id, planId, mode: 'choreography' });
    expect(await client.until(id, ['INTERVENTION'])).toMatchObject({ status: 'INTERVENTION', step });
    return id;
  };

  it.each(FORWARD_STEPS.flatMap((step) => [[step, 'timeout-before'] as const, [step, 'timeout-after'] as const]))(
    'when %s answered nothing (%s) and an operator resumes it, then it completes with one effect of each kind',
    async (step, action) => {
      const id = await stalled(step, action);

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
    const id = await stalled('content.grant-access', 'timeout-before', { country: 'JP' }, 'premium');

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
