import { randomUUID } from 'node:crypto';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { TestApp } from '../support/test-app';

async function scrape(app: TestApp, series: string): Promise<number> {
  const { text } = await app.http().get('/metrics').expect(200);
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('Users, plans, and reading checkouts', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({ env: { CHECKOUT_STUCK_AFTER_MS: '1000' } });
    client = new CheckoutClient(app);
  });
  afterAll(() => app.stop());

  it('when a user is created, then it comes with its token, and it can be read, blocked and unblocked', async () => {
    const created = await app
      .http()
      .post('/users')
      .send({ email: ' Ana@Example.COM ', name: ' Ana Souza ', country: 'br' })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      email: 'ana@example.com',
      name: 'Ana Souza',
      country: 'BR',
      status: 'active',
      token: expect.any(String),
    });

    const { token, ...user } = created.body;
    const read = await app.http().get(`/users/${user.id}`).set('authorization', `Bearer ${token}`).expect(200);
    expect(read.body).toEqual(user);
    const blocked = await client.admin(app.http().post(`/admin/users/${created.body.id}/block`)).expect(200);
    expect(blocked.body.status).toBe('blocked');
    const unblocked = await client.admin(app.http().post(`/admin/users/${created.body.id}/unblock`)).expect(200);
    expect(unblocked.body.status).toBe('active');
    await app.http().post(`/admin/users/${created.body.id}/block`).expect(401);
    await client.admin(app.http().post(`/admin/users/${randomUUID()}/block`)).expect(404);
  });

  it('when listing plans, then each comes with its price and where it is licensed', async () => {
    const { body } = await app.http().get('/plans').expect(200);

    expect(body).toEqual([
      { id: 'basic', name: 'Basic', priceCents: 990, currency: 'USD', licensedCountries: ['*'] },
      { id: 'premium', name: 'Premium', priceCents: 2990, currency: 'USD', licensedCountries: ['BR', 'PT', 'US'] },
    ]);
  });

  it('when listing checkouts, then filters apply and the cursor walks every page once, newest first', async () => {
    const user = await client.createUser({ country: 'JP' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(await client.start({ userId: user.id, planId: i % 2 ? 'premium' : 'basic' }));
    for (const id of ids) await client.until(id, ['COMPLETED', 'FAILED']);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const { body }: { body: { items: Array<{ id: string; userId: string }>; nextCursor: string | null } } =
        await client
          .as(user.id, app.http().get('/checkouts'))
          .query({ limit: 2, mode: 'choreography', ...(cursor ? { cursor } : {}) })
          .expect(200);
      seen.push(...body.items.filter((item) => item.userId === user.id).map((item) => item.id));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const failed = await client.admin(app.http().get('/checkouts')).query({ status: 'FAILED', limit: 100 }).expect(200);
    expect(failed.body.items.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([ids[1], ids[3]]));
    expect(failed.body.items.every((c: { status: string }) => c.status === 'FAILED')).toBe(true);
  });

  it('when checkouts end, then /metrics counts and times them by mode and outcome, and counts the open ones by status', async () => {
    const user = await client.createUser();
    const id = await client.start({ userId: user.id });
    await client.until(id, ['COMPLETED']);

    expect(
      await scrape(app, 'checkout_duration_seconds_count{mode="choreography",outcome="completed"}'),
    ).toBeGreaterThanOrEqual(1);
    // The gauge reads only the open checkouts, through an index (ADR 0078): no finished status in it.
    const { text } = await app.http().get('/metrics').expect(200);
    expect(text).toMatch(/^checkouts\{mode="choreography",status="PENDING"\} \d+$/m);
    expect(text).toMatch(/^checkouts\{mode="orchestration",status="INTERVENTION"\} \d+$/m);
    expect(text).not.toMatch(/^checkouts\{[^}]*status="(COMPLETED|REJECTED|FAILED)"/m);
  });

  it('when a checkout stays PENDING past CHECKOUT_STUCK_AFTER_MS, then it counts as stuck and the stuck filter lists it', async () => {
    const [{ id }] = await app.database.query<{ id: string }>(
      `INSERT INTO checkout.checkouts (id, user_id, plan_id, payment_method, mode, step, correlation_id, created_at)
       VALUES ($1, $2, 'basic', 'pm_card_ok', 'choreography', 'identity.verify-user', 'stuck', now() - interval '1 minute')
       RETURNING id`,
      [randomUUID(), randomUUID()],
    );

    await eventually(async () =>
      expect(await scrape(app, 'checkouts_stuck{mode="choreography"}')).toBeGreaterThanOrEqual(1),
    );
    const { body } = await client.admin(app.http().get('/checkouts')).query({ stuck: 'true' }).expect(200);
    expect(body.items.map((c: { id: string }) => c.id)).toContain(id);
    expect(body.items.every((c: { status: string }) => c.status === 'PENDING')).toBe(true);
  });
});
