import { CheckoutClient } from '../support/checkout-client';
import { TestApp } from '../support/test-app';

const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];

describe('An orchestrated checkout', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({ env: { OUTBOX_RELAY_INTERVAL_MS: '100', SAGA_STEP_TIMEOUT_MS: '500' } });
    client = new CheckoutClient(app);
  });
  afterAll(() => app.stop());

  it('when everything says yes, then it is COMPLETED', async () => {
    const user = await client.createUser({ country: 'BR' });

    const id = await client.start({ userId: user.id, planId: 'premium', mode: 'orchestration' });

    expect(await client.until(id, FINAL)).toMatchObject({ status: 'COMPLETED', mode: 'orchestration' });
    expect(await client.effects(id)).toEqual({ payment: 'captured', entitlement: 'active', emails: 1 });
  });
});
