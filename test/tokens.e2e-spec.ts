import { JwtService } from '@nestjs/jwt';
import { type Buyer, CheckoutClient } from './support/checkout-client';
import { AUTH_TOKEN_SECRET, TestApp } from './support/test-app';

/** Every row of every table that a request could write. */
const TABLES = [
  'identity.users',
  'checkout.checkouts',
  'checkout.idempotency_keys',
  'outbox.messages',
  'billing.payments',
  'content.entitlements',
  'notifications.emails',
];

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;

/**
 * A bearer token that the app did not sign, or no longer honours, is a 401 with the usual JSON
 * body, on every kind of route, and the request writes nothing. Only the api role runs, so that
 * nothing in the background writes meanwhile.
 */
describe('Bad bearer tokens', () => {
  let app: TestApp;
  let client: CheckoutClient;
  let buyer: Buyer;
  let other: Buyer;
  let checkoutId: string;
  const badTokens: Array<[string, () => string]> = [];

  const rowCounts = async () =>
    Object.fromEntries(
      await Promise.all(
        TABLES.map(async (table) => [
          table,
          (await app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n,
        ]),
      ),
    );

  beforeAll(async () => {
    app = await TestApp.start({ env: { APP_ROLES: 'api' } });
    client = new CheckoutClient(app);
    buyer = await client.createUser();
    other = await client.createUser();
    checkoutId = await client.start({ userId: buyer.id });
  });
  afterAll(() => app.stop());

  // The same claims as a real token (issuer, audience, subject), signed or altered as an attacker could.
  const claims = () => {
    const { iss, aud } = claimsOf(buyer.token);
    return { iss, aud, sub: buyer.id };
  };
  const now = () => Math.floor(Date.now() / 1000);
  badTokens.push(
    ['signed with another secret', () => new JwtService({ secret: 'x'.repeat(48) }).sign({ ...claims() })],
    [
      'expired',
      () => new JwtService({ secret: AUTH_TOKEN_SECRET }).sign({ ...claims(), iat: now() - 120, exp: now() - 60 }),
    ],
    [
      'altered to name another buyer (the payload changed, the signature kept)',
      () => {
        const [header, , signature] = buyer.token.split('.');
        return [header, base64url({ ...claimsOf(buyer.token), sub: other.id }), signature].join('.');
      },
    ],
    ['unsigned (alg none)', () => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ ...claims() })}.`],
    [
      'signed with the secret for another audience',
      () => new JwtService({ secret: AUTH_TOKEN_SECRET }).sign({ ...claims(), aud: 'someone-else' }),
    ],
    ['not a token at all', () => 'not-a-token'],
    ["the admin token's lookalike", () => 'test-admin-token-012345678X'],
  );

  const calls = () =>
    [
      ['GET', `/checkouts/${checkoutId}`],
      ['GET', `/checkouts/${checkoutId}/timeline`],
      ['GET', '/checkouts'],
      ['GET', `/users/${buyer.id}`],
      ['POST', '/checkouts', CheckoutClient.checkoutBody({ userId: buyer.id })],
      ['POST', '/users', CheckoutClient.userBody()],
      ['GET', '/plans'],
    ] as const;

  it.each(badTokens)(
    'when a token %s is sent, then every route answers 401 JSON and nothing is written',
    async (_, make) => {
      const token = make();
      const before = await rowCounts();

      for (const [method, path, body] of calls()) {
        const request = (method === 'GET' ? app.http().get(path) : app.http().post(path).send(body)).set(
          'authorization',
          `Bearer ${token}`,
        );
        const response = await request;

        expect({ call: `${method} ${path}`, status: response.status }).toEqual({
          call: `${method} ${path}`,
          status: 401,
        });
        expect(response.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
      }
      expect(await rowCounts()).toEqual(before);
    },
  );

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two tokens'])(
    'when the Authorization header is "%s", then the answer is 401 JSON',
    async (header) => {
      const response = await app.http().get(`/checkouts/${checkoutId}`).set('authorization', header).expect(401);

      expect(response.body.statusCode).toBe(401);
    },
  );

  it("when the buyer's own token is sent, then the same calls are served", async () => {
    await client.as(buyer.id, app.http().get(`/checkouts/${checkoutId}`)).expect(200);
    await client.as(buyer.id, app.http().get(`/users/${buyer.id}`)).expect(200);
    const started = await client
      .as(buyer.id, app.http().post('/checkouts'))
      .send(CheckoutClient.checkoutBody({ userId: buyer.id.toUpperCase() }))
      .expect(202);
    expect((await client.get(started.body.id)).userId).toBe(buyer.id);
  });
});
