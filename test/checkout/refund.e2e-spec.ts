import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

describe('Refunding a completed checkout', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({ env: { ...QUIET_ENV, OUTBOX_RELAY_INTERVAL_MS: '50' } });
    client = new CheckoutClient(app);
  });
  afterAll(() => app.stop());

  const refund = (id: string) => client.admin(app.http().post(`/admin/payments/${id}/refund`));

  it.each(['choreography', 'orchestration'])(
    'when an operator refunds a completed %s checkout (twice), then it is refunded once, recorded on the checkout and its timeline, and the invariants hold',
    async (mode) => {
      const id = await client.start({ userId: (await client.createUser()).id, mode });
      await client.until(id, ['COMPLETED']);

      await refund(id).expect(200, { checkoutId: id, status: 'refunded' });
      await refund(id).expect(200, { checkoutId: id, status: 'refunded' });

      const checkout = await eventually(async () => {
        const read = await client.get(id);
        expect(read.refundedAt).toEqual(expect.any(String));
        return read;
      });
      expect(checkout.status).toBe('COMPLETED');
      const timeline = await client.timeline(id);
      expect(timeline.filter((e) => e.kind === 'event' && e.type === 'billing.payment-refunded.v1')).toHaveLength(1);
      await quiet(app);
      expect(await client.leftTheSystem(id)).toEqual({
        authorize: 1,
        capture: 1,
        void: 0,
        refund: 1,
        welcomeEmails: 1,
      });
      expect((await client.invariants([id])).violations).toEqual([]);
    },
  );

  it('when an operator refunds a checkout that captured nothing, then 409 and nothing is recorded', async () => {
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, paymentMethod: 'pm_card_declined' });
    await client.until(id, ['FAILED']);

    const response = await refund(id).expect(409);

    expect(response.body).toMatchObject({ statusCode: 409, message: expect.stringContaining('Cannot refund') });
    expect((await client.get(id)).refundedAt).toBeNull();
  });
});
