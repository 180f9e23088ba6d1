import { CheckoutClient } from './support/checkout-client';
import { TestApp } from './support/test-app';

/**
 * POST /users and POST /checkouts are limited per client (by address) and window. Every other
 * test runs with the limits at 0, which turns them off; this one sets small ones.
 */
describe('Rate limits', () => {
  let app: TestApp;
  let client: CheckoutClient;
  const count = async (table: string) =>
    (await app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;

  beforeAll(async () => {
    app = await TestApp.start({
      env: { APP_ROLES: 'api', RATE_LIMIT_SIGNUPS: '2', RATE_LIMIT_CHECKOUTS: '2', RATE_LIMIT_WINDOW_MS: '60000' },
    });
    client = new CheckoutClient(app);
  });
  afterAll(() => app.stop());

  it('when a client goes over a limit, then it gets 429 with Retry-After and a JSON body, and nothing is written', async () => {
    const buyer = await client.createUser();
    await client.createUser();
    const users = await count('identity.users');

    const refused = await client.signUp().expect(429);

    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: expect.stringContaining('Retry-After'),
    });
    expect(await count('identity.users')).toBe(users);

    // Checkouts have their own count: the two sign-ups did not use it up.
    await client.start({ userId: buyer.id });
    await client.start({ userId: buyer.id });
    const checkouts = await count('checkout.checkouts');
    const tooMany = await client
      .as(buyer.id, app.http().post('/checkouts'))
      .send(CheckoutClient.checkoutBody())
      .expect(429);
    expect(tooMany.headers['retry-after']).toBeDefined();
    expect(await count('checkout.checkouts')).toBe(checkouts);

    // Reads have a count of their own (off here: test/security/shared-rate-limits.e2e-spec.ts floods it).
    for (let i = 0; i < 5; i += 1) await app.http().get('/plans').expect(200);
  });
});
