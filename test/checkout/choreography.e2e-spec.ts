import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { CheckoutClient, LEFT } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];

describe('A choreographed checkout, end to end over HTTP', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({
      env: { ...QUIET_ENV, OUTBOX_RELAY_INTERVAL_MS: '100', OUTBOX_ATTEMPTS: '3', OUTBOX_BACKOFF_MS: '20' },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  it('when everything says yes, then it is COMPLETED with one capture, one active entitlement and one email', async () => {
    const user = await client.createUser({ country: 'BR' });

    const id = await client.start({ userId: user.id, planId: 'premium' });

    const checkout = await client.until(id, FINAL);
    expect(checkout).toMatchObject({
      status: 'COMPLETED',
      mode: 'choreography',
      step: 'notifications.send-welcome-email',
      failureReason: null,
      completedAt: expect.any(String),
    });
    expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
    expect((await client.invariants([id])).violations).toEqual([]);
  });

  it('when the buyer is blocked, then it is REJECTED and no payment exists', async () => {
    const user = await client.createUser();
    await client.blockUser(user.id);

    const id = await client.start({ userId: user.id });

    expect(await client.until(id, FINAL)).toMatchObject({
      status: 'REJECTED',
      failureReason: 'user-blocked',
      step: 'identity.verify-user',
    });
    expect(await client.effects(id)).toEqual({ payment: undefined, entitlement: undefined, emails: 0 });
  });

  it('when the buyer does not exist, then it is REJECTED and no payment exists', async () => {
    const id = await client.start({ userId: randomUUID() });

    expect(await client.until(id, FINAL)).toMatchObject({ status: 'REJECTED', failureReason: 'unknown-user' });
    expect(await client.effects(id)).toEqual({ payment: undefined, entitlement: undefined, emails: 0 });
  });

  it('when the card is declined, then it is FAILED and nothing is captured', async () => {
    const user = await client.createUser();

    const id = await client.start({ userId: user.id, paymentMethod: 'pm_card_declined' });

    expect(await client.until(id, FINAL)).toMatchObject({
      status: 'FAILED',
      failureReason: 'card-declined',
      step: 'billing.authorize-payment',
    });
    expect(await client.effects(id)).toEqual({ payment: 'declined', entitlement: undefined, emails: 0 });
    expect((await client.invariants([id])).violations).toEqual([]);
  });

  it("when the plan is not licensed in the buyer's country, then it is FAILED with the authorization voided", async () => {
    const user = await client.createUser({ country: 'JP' });

    const id = await client.start({ userId: user.id, planId: 'premium' });

    expect(await client.until(id, FINAL)).toMatchObject({
      status: 'FAILED',
      failureReason: 'not-licensed',
      step: 'billing.void-authorization',
    });
    expect(await client.effects(id)).toEqual({ payment: 'voided', entitlement: undefined, emails: 0 });
    expect((await client.invariants([id])).violations).toEqual([]);
  });

  it('when the capture is declined, then access is revoked, the authorization voided, and it is FAILED', async () => {
    const user = await client.createUser();

    const id = await client.start({ userId: user.id, paymentMethod: 'pm_card_capture_declined' });

    expect(await client.until(id, FINAL)).toMatchObject({
      status: 'FAILED',
      failureReason: 'capture-declined',
      step: 'billing.void-authorization',
    });
    expect(await client.effects(id)).toEqual({ payment: 'voided', entitlement: 'revoked', emails: 0 });
    const kinds = (await client.timeline(id)).filter((e) => e.kind === 'event').map((e) => e.type);
    expect(kinds.indexOf('content.access-revoked.v1')).toBeLessThan(kinds.indexOf('billing.payment-voided.v1'));
    expect((await client.invariants([id])).violations).toEqual([]);
  });

  it('when a consumer fails twice then succeeds, then it is COMPLETED and the effect happened once', async () => {
    app.get(Faults).set([{ point: 'consumer:content.grant-access', action: 'fail', times: 2 }]);
    const user = await client.createUser();

    const id = await client.start({ userId: user.id });

    expect(await client.until(id, FINAL)).toMatchObject({ status: 'COMPLETED' });
    await quiet(app);
    expect(await client.leftTheSystem(id)).toEqual(LEFT.sold);
    expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
    const grants = (await client.timeline(id)).filter((e) => e.consumer === 'content.grant-access');
    expect(grants.map((e) => [e.kind, e.attempt])).toEqual([
      ['attempt-failed', 1],
      ['attempt-failed', 2],
      ['handled', 3],
    ]);
  });

  it('when the welcome email always fails, then it is INTERVENTION with a dead letter; redriven, then COMPLETED with one email', async () => {
    app.get(Faults).set([{ point: 'consumer:notifications.send-welcome-email', action: 'fail' }]);
    const user = await client.createUser();

    const id = await client.start({ userId: user.id });

    const stuck = await client.until(id, FINAL);
    expect(stuck).toMatchObject({
      status: 'INTERVENTION',
      step: 'notifications.send-welcome-email',
      failureReason: expect.stringContaining('notifications.send-welcome-email gave up on billing.invoice-issued.v1'),
    });
    expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 0 });
    const { body: deadLetters } = await client
      .admin(app.http().get('/admin/dead-letters?consumer=notifications.send-welcome-email'))
      .expect(200);
    const deadLetter = deadLetters.find((d: { message: { aggregateId: string } }) => d.message.aggregateId === id);
    expect(deadLetter).toMatchObject({ attempts: 3, status: 'dead' });

    app.get(Faults).clear();
    await client.admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(200);

    expect(await client.until(id, ['COMPLETED'])).toMatchObject({ status: 'COMPLETED', failureReason: null });
    await quiet(app);
    expect(await client.leftTheSystem(id)).toEqual(LEFT.sold);
    expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
    expect((await client.invariants([id])).violations).toEqual([]);
  });

  it('when every message is delivered twice, then every outcome is the same and the invariants hold', async () => {
    app.get(Faults).set([{ point: 'relay.push', action: 'duplicate' }]);
    const cases = [
      { country: 'BR', planId: 'premium', paymentMethod: 'pm_card_ok', expected: 'COMPLETED', left: LEFT.sold },
      { country: 'JP', planId: 'premium', paymentMethod: 'pm_card_ok', expected: 'FAILED', left: LEFT.undone },
      { country: 'PT', planId: 'basic', paymentMethod: 'pm_card_declined', expected: 'FAILED', left: LEFT.nothing },
      {
        country: 'US',
        planId: 'basic',
        paymentMethod: 'pm_card_capture_declined',
        expected: 'FAILED',
        left: LEFT.undone,
      },
    ];

    const ids = await Promise.all(
      cases.map(async ({ country, planId, paymentMethod }) =>
        client.start({ userId: (await client.createUser({ country })).id, planId, paymentMethod }),
      ),
    );

    for (const [index, id] of ids.entries()) {
      expect((await client.until(id, FINAL)).status).toBe(cases[index].expected);
    }
    await eventually(async () => {
      const duplicates = await app.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox.delivery_attempts a JOIN outbox.messages m ON m.id = a.message_id
          WHERE a.outcome = 'duplicate' AND m.aggregate_id = ANY($1)`,
        [ids],
      );
      expect(duplicates[0].n).toBeGreaterThan(0);
    });
    await quiet(app);
    for (const [index, id] of ids.entries()) expect(await client.leftTheSystem(id)).toEqual(cases[index].left);
    expect((await client.invariants(ids)).violations).toEqual([]);
  });

  it('when reading a timeline, then it lists the events, deliveries and compensations of that checkout in order', async () => {
    const user = await client.createUser({ country: 'JP' });
    const correlationId = `walk-through-${randomUUID()}`;

    const id = await client.start({ userId: user.id, planId: 'premium' }, { 'x-correlation-id': correlationId });
    await client.until(id, FINAL);

    const timeline = await client.timeline(id);
    expect(timeline.filter((e) => e.kind === 'event').map((e) => e.type)).toEqual([
      'checkout.checkout-requested.v1',
      'identity.buyer-verified.v1',
      'billing.payment-authorized.v1',
      'content.access-refused.v1',
      'billing.payment-voided.v1',
    ]);
    expect(timeline.filter((e) => e.kind === 'handled').map((e) => e.consumer)).toEqual(
      expect.arrayContaining([
        'identity.verify-user',
        'billing.authorize-payment',
        'content.grant-access',
        'billing.void-authorization',
      ]),
    );
    const times = timeline.map((e) => Date.parse(String(e.at)));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((await client.get(id)).correlationId).toBe(correlationId);
  });
});
