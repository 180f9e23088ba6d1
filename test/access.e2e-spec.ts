import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Buyer, CheckoutClient } from './support/checkout-client';
import { ADMIN_TOKEN, TestApp } from './support/test-app';

type Caller = 'anonymous' | 'other buyer' | 'buyer' | 'operator';
const CALLERS: Caller[] = ['anonymous', 'other buyer', 'buyer', 'operator'];

/** What a path's `{id}` (or `{checkoutId}`) stands for: the buyer's user, the buyer's checkout, or nothing that exists. */
type Target = 'user' | 'checkout' | 'none';

interface Row {
  route: string;
  /** The status each caller gets, in the order of CALLERS. */
  expected: [number, number, number, number];
  target: Target;
  body?: (fixture: Fixture) => object;
}

interface Fixture {
  buyer: Buyer;
  checkoutId: string;
}

/** One line per route of the OpenAPI document: a route without a line fails the first test. */
const row = (route: string, expected: Row['expected'], target: Target = 'none', body?: Row['body']): Row => ({
  route,
  expected,
  target,
  body,
});

// prettier-ignore
const ACCESS: Row[] = [
  //   route                                         anonymous, other buyer, buyer, operator
  row('GET /health',                                 [200, 200, 200, 200]),
  row('GET /metrics',                                [200, 200, 200, 200]),
  row('GET /plans',                                  [200, 200, 200, 200]),
  row('GET /checkout-steps',                         [200, 200, 200, 200]),
  row('POST /users',                                 [201, 201, 201, 201], 'none', () => CheckoutClient.userBody()),
  row('GET /users/{id}',                             [401, 404, 200, 200], 'user'),
  row('GET /users/{id}/access',                      [401, 404, 200, 200], 'user'),
  row('POST /admin/users/{id}/block',                [401, 401, 401, 200], 'user'),
  row('POST /admin/users/{id}/unblock',              [401, 401, 401, 200], 'user'),
  row('POST /checkouts',                             [401, 403, 202, 202], 'none', ({ buyer }) => CheckoutClient.checkoutBody({ userId: buyer.id })),
  row('GET /checkouts',                              [401, 200, 200, 200]),
  row('GET /checkouts/{id}',                         [401, 404, 200, 200], 'checkout'),
  row('GET /checkouts/{id}/timeline',                [401, 404, 200, 200], 'checkout'),
  row('GET /admin/dead-letters',                     [401, 401, 401, 200]),
  row('POST /admin/dead-letters/{id}/redrive',       [401, 401, 401, 404]),
  row('DELETE /admin/dead-letters/{id}',             [401, 401, 401, 404]),
  row('GET /admin/sagas',                            [401, 401, 401, 200]),
  row('POST /admin/sagas/{id}/retry',                [401, 401, 401, 404]),
  row('POST /admin/payments/{checkoutId}/refund',    [401, 401, 401, 409], 'checkout'),
  row('GET /admin/invariants',                       [401, 401, 401, 200]),
  row('GET /admin/participants',                     [401, 401, 401, 200]),
  row('GET /admin/faults',                           [401, 401, 401, 200]),
  row('PUT /admin/faults',                           [401, 401, 401, 200], 'none', () => ({ rules: [] })),
  row('DELETE /admin/faults',                        [401, 401, 401, 200]),
  row('POST /admin/checkouts/{id}/resume',           [401, 401, 401, 409], 'checkout'),
  row('GET /features',                               [200, 200, 200, 200]),
  row('GET /comparisons/latest',                     [404, 404, 404, 404]),
];

/** Every row of every table that a request could write. */
const TABLES = [
  'identity.users',
  'billing.payments',
  'content.entitlements',
  'notifications.emails',
  'checkout.checkouts',
  'checkout.idempotency_keys',
  'outbox.messages',
];

/**
 * Who may call what (docs/http-api.md, "Who may see what"): every route of the OpenAPI document, called by
 * each kind of caller. Only the api role runs, so nothing in the background writes meanwhile and
 * a refused call can be shown to have written nothing.
 */
describe('Access to every route', () => {
  let app: TestApp;
  let client: CheckoutClient;
  let fixture: Fixture;
  let other: Buyer;

  const rowCounts = async () =>
    Object.fromEntries(
      await Promise.all(
        TABLES.map(async (table) => [
          table,
          (await app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n,
        ]),
      ),
    );

  const tokenOf = (caller: Caller): string | undefined =>
    ({ anonymous: undefined, 'other buyer': other.token, buyer: fixture.buyer.token, operator: ADMIN_TOKEN })[caller];

  const pathOf = (route: string, target: Target): string => {
    const id = { user: fixture.buyer.id, checkout: fixture.checkoutId, none: randomUUID() }[target];
    return route.split(' ')[1].replace(/\{[^}]+\}/g, id);
  };

  beforeAll(async () => {
    // No comparison written yet: an empty folder, whatever `npm run compare` left in bench/results.
    const noComparisons = mkdtempSync(path.join(tmpdir(), 'no-comparisons-'));
    app = await TestApp.start({ env: { APP_ROLES: 'api', COMPARE_RESULTS_DIR: noComparisons } });
    client = new CheckoutClient(app);
    const buyer = await client.createUser();
    other = await client.createUser();
    fixture = { buyer, checkoutId: await client.start({ userId: buyer.id }) };
  });
  afterAll(() => app.stop());

  it('when the OpenAPI document is read, then every route in it has a line in the access table, and no line is stale', async () => {
    const { body } = await app.http().get('/docs-json').expect(200);
    const documented = Object.entries(body.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );

    expect([...documented].sort()).toEqual(ACCESS.map((r) => r.route).sort());
  });

  it('when the OpenAPI document is read, then it declares the buyer and operator bearer schemes', async () => {
    const { body } = await app.http().get('/docs-json').expect(200);

    expect(body.components.securitySchemes).toMatchObject({
      buyer: { type: 'http', scheme: 'bearer' },
      admin: { type: 'http', scheme: 'bearer' },
    });
    expect(body.paths['/checkouts/{id}'].get.security).toEqual(expect.arrayContaining([{ buyer: [] }, { admin: [] }]));
  });

  it.each(ACCESS.map((r) => [r.route, r] as const))(
    'when %s is called by each kind of caller, then each gets the status of the table',
    async (_, { route, expected, target, body }) => {
      const method = route.split(' ')[0].toLowerCase() as 'get' | 'post' | 'put' | 'delete';
      const answers: Record<string, number> = {};
      for (const caller of CALLERS) {
        const before = await rowCounts();
        let request = app.http()[method](pathOf(route, target));
        const token = tokenOf(caller);
        if (token) request = request.set('authorization', `Bearer ${token}`);
        const response = await (body ? request.send(body(fixture)) : request);
        answers[caller] = response.status;
        if (response.status >= 400) {
          expect(response.body).toMatchObject({ statusCode: response.status, error: expect.any(String) });
          expect(await rowCounts()).toEqual(before);
        }
      }

      expect(answers).toEqual(Object.fromEntries(CALLERS.map((caller, i) => [caller, expected[i]])));
    },
  );

  it("when another buyer asks for a buyer's checkout, user or timeline, then the answer is exactly that of one that does not exist", async () => {
    const missing = randomUUID();
    for (const [path, none] of [
      [`/checkouts/${fixture.checkoutId}`, `/checkouts/${missing}`],
      [`/checkouts/${fixture.checkoutId}/timeline`, `/checkouts/${missing}/timeline`],
      [`/users/${fixture.buyer.id}`, `/users/${missing}`],
      [`/users/${fixture.buyer.id}/access`, `/users/${missing}/access`],
    ]) {
      const theirs = await client.as(other.id, app.http().get(path)).expect(404);
      const nobody = await client.as(other.id, app.http().get(none)).expect(404);

      expect(theirs.body).toEqual({
        ...nobody.body,
        message: nobody.body.message.replace(missing, path.split('/')[2]),
      });
    }
  });

  it('when a buyer lists checkouts, then only their own come back; the operator sees everyone', async () => {
    const list = async (as: string | undefined) =>
      (
        await (as ? client.as(as, app.http().get('/checkouts')) : client.admin(app.http().get('/checkouts')))
          .query({ limit: 100 })
          .expect(200)
      ).body.items.map((item: { id: string; userId: string }) => item);

    expect(await list(other.id)).toEqual([]);
    expect((await list(fixture.buyer.id)).every((c: { userId: string }) => c.userId === fixture.buyer.id)).toBe(true);
    expect((await list(fixture.buyer.id)).map((c: { id: string }) => c.id)).toContain(fixture.checkoutId);
    expect((await list(undefined)).map((c: { id: string }) => c.id)).toContain(fixture.checkoutId);
  });

  it('when a buyer starts a checkout without a userId, then it is theirs; the operator must name the buyer', async () => {
    const { buyer } = fixture;
    const started = await client
      .as(buyer.id, app.http().post('/checkouts'))
      .send(CheckoutClient.checkoutBody())
      .expect(202);
    expect((await client.get(started.body.id)).userId).toBe(buyer.id);

    const refused = await client.admin(app.http().post('/checkouts')).send(CheckoutClient.checkoutBody()).expect(400);
    expect(refused.body.details).toEqual([expect.objectContaining({ field: 'userId' })]);
  });
});

describe('Access without ADMIN_TOKEN', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({ env: { ADMIN_TOKEN: '', APP_ROLES: 'api' } });
    client = new CheckoutClient(app);
  });
  afterAll(() => app.stop());

  it('when no operator is configured, then no one lists every checkout or reads another buyer, and /admin/* is not there', async () => {
    const buyer = await client.createUser();
    const other = await client.createUser();
    const id = await client.start({ userId: buyer.id });
    // The token an operator would send, had one been configured.
    const wouldBeOperator = { authorization: `Bearer ${ADMIN_TOKEN}` };

    await app.http().get('/checkouts').set(wouldBeOperator).expect(401);
    await app.http().get(`/users/${buyer.id}`).set(wouldBeOperator).expect(401);
    await app.http().get('/admin/dead-letters').set(wouldBeOperator).expect(404);
    await app.http().get('/checkouts').expect(401);
    const theirs = await client.as(other.id, app.http().get('/checkouts')).expect(200);
    expect(theirs.body.items).toEqual([]);
    const mine = await client.as(buyer.id, app.http().get('/checkouts')).expect(200);
    expect(mine.body.items.map((c: { id: string }) => c.id)).toEqual([id]);
  });
});
