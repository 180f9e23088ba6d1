import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';

/** Every row of every table that a request could write. */
const TABLES = [
  'identity.users',
  'billing.payments',
  'billing.payment_intents',
  'content.entitlements',
  'notifications.emails',
  'checkout.checkouts',
  'checkout.idempotency_keys',
  'outbox.messages',
];

describe('Bad input', () => {
  let app: TestApp;
  // Validation happens before anyone looks the user up: any well-formed id will do, sent by the
  // operator, who may start a checkout for anyone (access is test/access.e2e-spec.ts's subject).
  const userId = randomUUID();
  const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };
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
    app = await TestApp.start({ env: { APP_ROLES: 'api', HTTP_BODY_LIMIT: '2kb' } });
  });
  afterAll(() => app.stop());

  const valid = () => ({ userId, planId: 'basic', paymentMethod: 'pm_card_ok' });
  const user = { email: 'someone@example.com', name: 'Someone', country: 'PT' };

  it.each<[string, string, string | object, number, RegExp, Record<string, string>?]>([
    ['checkout: malformed JSON', '/checkouts', '{"userId": ', 400, /not valid JSON/],
    ['checkout: a missing field', '/checkouts', { userId, planId: 'basic' }, 400, /paymentMethod/],
    ['checkout: an extra field', '/checkouts', { ...valid(), coupon: 'FREE' }, 400, /coupon/],
    ['checkout: a wrong type', '/checkouts', { ...valid(), planId: 7 }, 400, /planId/],
    ['checkout: a non-UUID user id', '/checkouts', { ...valid(), userId: 'user-1' }, 400, /userId must be a UUID/],
    ['checkout: an unknown plan', '/checkouts', { ...valid(), planId: 'platinum' }, 422, /no plan platinum/],
    [
      'checkout: an unsupported payment method',
      '/checkouts',
      { ...valid(), paymentMethod: 'pm_card_gold' },
      400,
      /paymentMethod/,
    ],
    ['checkout: an unknown mode', '/checkouts', { ...valid(), mode: 'improvised' }, 400, /mode must be one of/],
    ['checkout: an over-long plan id', '/checkouts', { ...valid(), planId: 'p'.repeat(65) }, 400, /planId/],
    [
      'checkout: a __proto__ key',
      '/checkouts',
      `{"userId":"${randomUUID()}","planId":"basic","paymentMethod":"pm_card_ok","__proto__":{"admin":true}}`,
      400,
      /__proto__/,
    ],
    [
      'checkout: a constructor key',
      '/checkouts',
      `{"constructor":{"prototype":{}},"planId":"basic"}`,
      400,
      /prototype|constructor/,
    ],
    ['checkout: an empty Idempotency-Key', '/checkouts', valid(), 400, /Idempotency-Key/, { 'idempotency-key': '' }],
    [
      'checkout: a too long Idempotency-Key',
      '/checkouts',
      valid(),
      400,
      /Idempotency-Key/,
      { 'idempotency-key': 'x'.repeat(256) },
    ],
    [
      'checkout: a body over the limit',
      '/checkouts',
      { ...valid(), note: 'x'.repeat(3_000) },
      413,
      /larger than the limit/,
    ],
    ['checkout: an array instead of an object', '/checkouts', [valid()], 400, /./],
    ['user: a country that is not ISO 3166-1', '/users', { ...user, country: 'XX' }, 400, /ISO 3166-1/],
    ['user: a three-letter country', '/users', { ...user, country: 'PRT' }, 400, /ISO 3166-1/],
    ['user: an invalid email', '/users', { ...user, email: 'not-an-email' }, 400, /email/],
    ['user: an over-long name', '/users', { ...user, name: 'n'.repeat(101) }, 400, /name/],
    ['user: an empty name', '/users', { ...user, name: '   ' }, 400, /name/],
    ['user: a name with control characters', '/users', { ...user, name: 'Ana\u0000' }, 400, /control characters/],
    [
      'user: a __proto__ key',
      '/users',
      `{"email":"x@example.com","name":"X","country":"PT","__proto__":{"status":"blocked"}}`,
      400,
      /__proto__/,
    ],
  ])(
    'when %s, then the answer is a clear %s... and nothing is written',
    async (_, path, body, status, message, headers = {}) => {
      const before = await rowCounts();

      const response = await app
        .http()
        .post(path)
        .set({ 'content-type': 'application/json', ...operator, ...headers })
        .send(typeof body === 'string' ? body : JSON.stringify(body))
        .expect(status)
        .expect('content-type', /json/);

      expect(response.body.statusCode).toBe(status);
      expect(typeof response.body.error).toBe('string');
      expect(`${response.body.message} ${JSON.stringify(response.body.details ?? '')}`).toMatch(message);
      expect(await rowCounts()).toEqual(before);
    },
  );

  it('when a validation fails, then the answer lists the problems by field', async () => {
    const response = await app
      .http()
      .post('/checkouts')
      .set(operator)
      .send({ userId: 'x', planId: 'basic', paymentMethod: 'cash' })
      .expect(400);

    expect(response.body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Validation failed',
      details: expect.arrayContaining([
        { field: 'userId', problems: ['userId must be a UUID'] },
        { field: 'paymentMethod', problems: [expect.stringContaining('paymentMethod must be one of')] },
      ]),
    });
  });

  it.each([
    ['/checkouts/not-a-uuid', 400],
    [`/checkouts/${randomUUID()}`, 404],
    ['/checkouts/not-a-uuid/timeline', 400],
    [`/checkouts/${randomUUID()}/timeline`, 404],
    ['/users/not-a-uuid', 400],
    [`/users/${randomUUID()}`, 404],
    ['/checkouts?status=LOST', 400],
    ['/checkouts?limit=0', 400],
    ['/checkouts?limit=101', 400],
    ['/checkouts?stuck=maybe', 400],
    ['/checkouts?cursor=bm9wZQ', 400],
    ['/checkouts?color=red', 400],
  ])('when GET %s, then the answer is %s JSON', async (path, status) => {
    const response = await app.http().get(path).set(operator).expect(status).expect('content-type', /json/);

    expect(response.body.statusCode).toBe(status);
  });

  it.each([
    ['/admin/dead-letters?limit=0', 'limit'],
    ['/admin/dead-letters?limit=501', 'limit'],
    ['/admin/dead-letters?limit=ten', 'limit'],
    ['/admin/dead-letters?status=lost', 'status'],
    ['/admin/sagas?limit=1.5', 'limit'],
    ['/admin/sagas?state=DONE', 'state'],
  ])('when an operator GETs %s, then the answer is 400 JSON naming %s', async (path, field) => {
    const response = await app
      .http()
      .get(path)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(400)
      .expect('content-type', /json/);

    expect(response.body.details).toEqual([expect.objectContaining({ field })]);
  });

  it('when an email is taken, whatever its case, then creating the user again is a 409', async () => {
    const email = `Taken-${randomUUID()}@Example.com`;
    await app
      .http()
      .post('/users')
      .send({ ...user, email })
      .expect(201);

    const response = await app
      .http()
      .post('/users')
      .send({ ...user, email: email.toLowerCase() })
      .expect(409);

    expect(response.body.message).toContain('already exists');
  });
});
