import { CheckoutClient } from '../support/checkout-client';
import { TestApp } from '../support/test-app';

/**
 * The rate limits count the client: the connection's address, or the one a trusted proxy names in
 * X-Forwarded-For (TRUST_PROXY). Every request here comes from 127.0.0.1; the sign-up limit is one
 * per minute, so a second sign-up in one bucket is refused.
 */
describe('Which client a rate limit counts (TRUST_PROXY)', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.stop();
  });

  const start = async (trustProxy: string | undefined) => {
    const app = await TestApp.start({
      env: { APP_ROLES: 'api', RATE_LIMIT_SIGNUPS: '1', RATE_LIMIT_WINDOW_MS: '60000', TRUST_PROXY: trustProxy },
    });
    apps.push(app);
    return app;
  };
  const signUpFrom = (app: TestApp, forwardedFor: string) =>
    app.http().post('/users').set('x-forwarded-for', forwardedFor).send(CheckoutClient.userBody());
  const users = async (app: TestApp) =>
    (await app.database.query<{ n: number }>('SELECT count(*)::int AS n FROM identity.users'))[0].n;

  it('when TRUST_PROXY is unset and a client names another address in X-Forwarded-For, then it still shares its own bucket', async () => {
    const app = await start(undefined);
    await signUpFrom(app, '203.0.113.1').expect(201);

    const spoofed = await signUpFrom(app, '203.0.113.2').expect(429);

    expect(spoofed.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect(await users(app)).toBe(1);
  });

  it('when TRUST_PROXY names other proxies, then X-Forwarded-For from this one is ignored', async () => {
    const app = await start('10.0.0.0/8, 192.0.2.10');
    await signUpFrom(app, '203.0.113.1').expect(201);

    await signUpFrom(app, '203.0.113.2').expect(429);

    expect(await users(app)).toBe(1);
  });

  it('when TRUST_PROXY=loopback, then two clients behind the proxy get a bucket each, and each is limited', async () => {
    const app = await start('loopback');

    await signUpFrom(app, '203.0.113.1').expect(201);
    await signUpFrom(app, '203.0.113.2').expect(201);
    // A client that names itself behind the proxy's own entry is still counted by what the proxy saw.
    await signUpFrom(app, '198.51.100.9, 203.0.113.1').expect(429);
    await signUpFrom(app, '203.0.113.2').expect(429);

    expect(await users(app)).toBe(2);
  });
});
