import { TransactionHost } from '@nestjs-cls/transactional';
import { randomUUID } from 'node:crypto';
import { AuthorizePayment, CapturePayment, RefundPayment } from '../../src/modules/billing';
import { GrantAccess } from '../../src/modules/content';
import { CheckoutClient } from '../support/checkout-client';
import { TestApp } from '../support/test-app';

/**
 * Exercise 03: the pivot.
 *
 * Each step leaves an effect, and the ways to undo them differ in cost: releasing a hold on a card
 * is free and invisible; refunding a charge is a second transaction on the buyer's statement.
 * The naive order charges first and asks later. The pivot rule puts the cheap, reversible steps
 * first (hold the money, grant access), the capture once nothing can say no any more, and only
 * what cannot be undone after it.
 */
describe('Exercise 03: the pivot', () => {
  let app: TestApp;
  let client: CheckoutClient;
  const gatewayOperations = async (checkoutId: string) =>
    (
      await app.database.query<{ operation: string }>(
        `SELECT operation FROM billing.gateway_requests WHERE idempotency_key LIKE $1 ORDER BY created_at`,
        [`${checkoutId}:%`],
      )
    ).map((row) => row.operation);

  beforeAll(async () => {
    app = await TestApp.start({ env: { OUTBOX_RELAY_INTERVAL_MS: '100' } });
    client = new CheckoutClient(app);
  });
  afterAll(() => app.stop());

  it('naive: when the money is taken before access is checked, then a refused access costs the buyer a charge and a refund', async () => {
    const buyer = await client.createUser({ country: 'JP' });
    const checkoutId = randomUUID();
    const key = (step: string) => `${checkoutId}:${step}`;

    await app.get(TransactionHost).withTransaction(async () => {
      await app.get(AuthorizePayment).execute({
        checkoutId,
        userId: buyer.id,
        planId: 'premium',
        paymentMethod: 'pm_card_ok',
        idempotencyKey: key('billing.authorize-payment'),
      });
      // Charge first...
      await app.get(CapturePayment).execute({ checkoutId, idempotencyKey: key('billing.capture-payment') });
      // ...then find out that the plan cannot be sold in Japan.
      const access = await app
        .get(GrantAccess)
        .execute({ checkoutId, userId: buyer.id, planId: 'premium', idempotencyKey: key('content.grant-access') });
      expect(access).toMatchObject({ outcome: 'refused', reason: 'not-licensed' });
      // A capture cannot be voided: the only way back is a refund.
      await app.get(RefundPayment).execute({ checkoutId, idempotencyKey: key('billing.refund-payment') });
    });

    expect(await gatewayOperations(checkoutId)).toEqual(['authorize', 'capture', 'refund']);
  });

  it('pivot: when access is refused before the capture, then the hold is released and nothing was ever charged', async () => {
    const buyer = await client.createUser({ country: 'JP' });

    const id = await client.start({ userId: buyer.id, planId: 'premium' });

    expect(await client.until(id, ['FAILED'])).toMatchObject({ failureReason: 'not-licensed' });
    expect(await gatewayOperations(id)).toEqual(['authorize', 'void']);
  });
});
