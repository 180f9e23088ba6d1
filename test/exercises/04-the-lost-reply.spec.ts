import { TransactionHost } from '@nestjs-cls/transactional';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { AuthorizePayment } from '../../src/modules/billing';
import { CheckoutClient } from '../support/checkout-client';
import { TestApp } from '../support/test-app';

/**
 * Exercise 04: the lost reply.
 *
 * A step can do its work and then lose its answer (a timeout, a crash before the reply was
 * sent). The caller cannot tell that from a step that never ran, so it tries again. With a new
 * idempotency key each time, the gateway sees two requests and holds the money twice. With one
 * key per step, the same on every retry (and on its compensation), the second try gets the
 * first answer back and nothing happens twice.
 */
describe('Exercise 04: the lost reply', () => {
  let app: TestApp;
  let client: CheckoutClient;
  const authorizations = async (checkoutId: string) =>
    (
      await app.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM billing.gateway_requests WHERE operation = 'authorize' AND idempotency_key LIKE $1`,
        [`${checkoutId}:%`],
      )
    )[0].n;

  beforeAll(async () => {
    app = await TestApp.start({ env: { OUTBOX_RELAY_INTERVAL_MS: '100', SAGA_STEP_TIMEOUT_MS: '300' } });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  it('naive: when a retry after a lost reply uses a new key, then the gateway holds the money twice', async () => {
    const buyer = await client.createUser();
    const checkoutId = randomUUID();
    const authorize = (attempt: number) =>
      app.get(TransactionHost).withTransaction(() =>
        app.get(AuthorizePayment).execute({
          checkoutId: attempt === 1 ? checkoutId : randomUUID(), // a new request each time, as far as anyone can tell
          userId: buyer.id,
          planId: 'basic',
          paymentMethod: 'pm_card_ok',
          idempotencyKey: `${checkoutId}:attempt-${attempt}`,
        }),
      );

    await authorize(1); // done, but its reply is lost...
    await authorize(2); // ...so the caller tries again.

    expect(await authorizations(checkoutId)).toBe(2);
  });

  it('one key per step: when the authorization answers too late once, then the retry gets the same answer and the money is held once', async () => {
    app.get(Faults).set([{ point: 'step:billing.authorize-payment', action: 'timeout-after', times: 1 }]);
    const buyer = await client.createUser();

    const id = await client.start({ userId: buyer.id, mode: 'orchestration' });

    expect(await client.until(id, ['COMPLETED', 'FAILED', 'INTERVENTION'])).toMatchObject({ status: 'COMPLETED' });
    const sends = (await client.timeline(id)).filter(
      (e) => e.kind === 'command' && e.type === 'billing.authorize-payment.v1',
    );
    expect(sends).toHaveLength(2);
    expect(await authorizations(id)).toBe(1);
    expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
  });
});
