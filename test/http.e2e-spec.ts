import { Client } from 'pg';
import { CORRELATION_HEADER } from '../src/infra/context/message-context';
import { CheckoutClient } from './support/checkout-client';
import { eventually } from './support/eventually';
import { ADMIN_TOKEN, logs, TestApp } from './support/test-app';

describe('The HTTP surface', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await TestApp.start({ env: { HTTP_BODY_LIMIT: '1kb', DATABASE_LOCK_TIMEOUT_MS: '300' } });
  });
  afterAll(() => app.stop());

  it('when Postgres and Redis answer, then GET /health is 200 and names both up', async () => {
    const response = await app.http().get('/health').expect(200);

    expect(response.body).toMatchObject({
      status: 'ok',
      info: { postgres: { status: 'up' }, redis: { status: 'up' } },
    });
  });

  it('when the app has started, then the six schemas exist', async () => {
    const rows = await app.database.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname = ANY($1) ORDER BY nspname`,
      [['identity', 'billing', 'content', 'notifications', 'checkout', 'outbox']],
    );

    expect(rows.map((row) => row.nspname)).toEqual([
      'billing',
      'checkout',
      'content',
      'identity',
      'notifications',
      'outbox',
    ]);
  });

  it('when a request waits on a lock held elsewhere past DATABASE_LOCK_TIMEOUT_MS, then it is a 503 JSON error, and it goes through once the lock is gone', async () => {
    const client = new CheckoutClient(app);
    const user = await client.createUser();
    const holder = new Client({ connectionString: app.database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM identity.users WHERE id = $1 FOR UPDATE`, [user.id]);

      const response = await app
        .http()
        .post(`/admin/users/${user.id}/block`)
        .set('authorization', `Bearer ${ADMIN_TOKEN}`)
        .expect(503);

      expect(response.body).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'held up in the database: retry',
      });
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    await client.blockUser(user.id);
  });

  it('when a route does not exist, then the answer is a 404 JSON error', async () => {
    const response = await app.http().get('/no/such/route').expect(404).expect('content-type', /json/);

    expect(response.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /no/such/route' });
  });

  it('when the body is not valid JSON, then the answer is a 400 JSON error', async () => {
    const response = await app
      .http()
      .post('/health')
      .set('content-type', 'application/json')
      .send('{"email": ')
      .expect(400)
      .expect('content-type', /json/);

    expect(response.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(response.body.message).toMatch(/^Request body is not valid JSON/);
  });

  it('when the body is larger than HTTP_BODY_LIMIT, then the answer is a 413 JSON error', async () => {
    const response = await app
      .http()
      .post('/health')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ padding: 'x'.repeat(2_000) }))
      .expect(413)
      .expect('content-type', /json/);

    expect(response.headers[CORRELATION_HEADER]).toBeDefined();
    expect(response.body).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'Request body is larger than the limit of 1024 bytes',
    });
  });

  it('when a request carries X-Correlation-Id, then the response echoes it; when not, one is made', async () => {
    const given = await app.http().get('/health').set(CORRELATION_HEADER, 'order-42.retry-1');
    const made = await app.http().get('/health');

    expect(given.headers[CORRELATION_HEADER]).toBe('order-42.retry-1');
    expect(made.headers[CORRELATION_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when X-Correlation-Id is not a plain token, then it is replaced by a new one', async () => {
    const response = await app.http().get('/health').set(CORRELATION_HEADER, 'bad id with spaces');

    expect(response.headers[CORRELATION_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when asked for the API documentation, then /docs serves Swagger UI and /docs-json the OpenAPI document', async () => {
    await app.http().get('/docs').expect(200).expect('content-type', /html/);
    const response = await app.http().get('/docs-json').expect(200);

    expect(response.body.openapi).toMatch(/^3\./);
    expect(Object.keys(response.body.paths)).toContain('/health');
  });

  it('when answering, then security headers are set and the framework is not advertised', async () => {
    const response = await app.http().get('/health');

    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it.each([
    ['malformed JSON', '{"email": ', 400],
    ['a body over the limit', JSON.stringify({ padding: 'x'.repeat(2_000) }), 413],
    ['a valid body on an unknown route', '{}', 404],
  ])('when a request carries %s, then its response still gets one request log line', async (_what, body, status) => {
    const correlationId = `log-line-${status}-${Date.now()}`;
    await app
      .http()
      .post('/checkouts/nowhere')
      .set('content-type', 'application/json')
      .set(CORRELATION_HEADER, correlationId)
      .send(body)
      .expect(status);

    const lines = await eventually(() => {
      const found = logs.matching((line) => line.correlationId === correlationId && line.res !== undefined);
      return found.length > 0 && found;
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        req: { method: 'POST', url: '/checkouts/nowhere' },
        res: { statusCode: status },
        msg: 'request completed',
      }),
    ]);
  });

  it('when a request is served, then it gets exactly one request log line, with its correlation id', async () => {
    const correlationId = `log-line-200-${Date.now()}`;
    await app.http().get('/plans').set(CORRELATION_HEADER, correlationId).expect(200);

    const lines = await eventually(() => {
      const found = logs.matching((line) => line.correlationId === correlationId && line.res !== undefined);
      return found.length > 0 && found;
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, req: { method: 'GET', url: '/plans' }, res: { statusCode: 200 } }),
    ]);
  });
});
