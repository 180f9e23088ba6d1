import { randomUUID } from 'node:crypto';
import { ExpiredIdempotencyKeys } from '../../src/modules/checkout/start-checkout/expired-idempotency-keys';
import { CheckoutClient } from '../support/checkout-client';
import { TestApp } from '../support/test-app';

describe('POST /checkouts with an Idempotency-Key', () => {
  let app: TestApp;
  let client: CheckoutClient;
  let userId: string;
  const checkoutsWithKey = async (key: string) =>
    (
      await app.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM checkout.checkouts c
           JOIN checkout.idempotency_keys k ON k.checkout_id = c.id WHERE k.key = $1`,
        [key],
      )
    )[0].n;
  const post = (key: string, body: Record<string, unknown>, as = userId) =>
    client.as(as, app.http().post('/checkouts')).set('idempotency-key', key).send(body);

  beforeAll(async () => {
    app = await TestApp.start({ env: { APP_ROLES: 'api', CHECKOUT_IDEMPOTENCY_WAIT_MS: '300' } });
    client = new CheckoutClient(app);
    userId = (await client.createUser()).id;
  });
  afterAll(() => app.stop());

  it('when the same request is repeated, then the first answer comes back and nothing new starts', async () => {
    const key = `order-${randomUUID()}`;
    const body = { userId, planId: 'basic', paymentMethod: 'pm_card_ok' };

    const first = await post(key, body).expect(202);
    const again = await post(key, body).expect(202);

    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(`/checkouts/${first.body.id}`);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await checkoutsWithKey(key)).toBe(1);
    const [{ n }] = await app.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox.messages WHERE aggregate_id = $1`,
      [first.body.id],
    );
    expect(n).toBe(1);
  });

  it("when two buyers send the same key, then each gets their own checkout and neither sees the other's", async () => {
    const key = `shared-${randomUUID()}`;
    const other = (await client.createUser()).id;

    const mine = await post(key, { userId, planId: 'basic', paymentMethod: 'pm_card_ok' }).expect(202);
    const theirs = await post(key, { userId: other, planId: 'basic', paymentMethod: 'pm_card_ok' }, other).expect(202);
    const mineAgain = await post(key, { userId, planId: 'basic', paymentMethod: 'pm_card_ok' }).expect(202);

    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(mineAgain.body).toEqual(mine.body);
    expect(await checkoutsWithKey(key)).toBe(2);
  });

  it('when a key has expired, then the same request starts a new checkout', async () => {
    const key = `old-${randomUUID()}`;
    const body = { userId, planId: 'basic', paymentMethod: 'pm_card_ok' };
    const first = await post(key, body).expect(202);
    await app.database.query(
      `UPDATE checkout.idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE key = $1`,
      [key],
    );

    const again = await post(key, body).expect(202);
    const once = await post(key, body).expect(202);

    expect(again.body.id).not.toBe(first.body.id);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(once.body.id).toBe(again.body.id);
    expect(await checkoutsWithKey(key)).toBe(1);
  });

  it('when the housekeeping runs, then expired keys are deleted and live ones kept', async () => {
    const [old, fresh] = [`purge-old-${randomUUID()}`, `purge-fresh-${randomUUID()}`];
    await post(old, { userId, planId: 'basic', paymentMethod: 'pm_card_ok' }).expect(202);
    await post(fresh, { userId, planId: 'basic', paymentMethod: 'pm_card_ok' }).expect(202);
    await app.database.query(
      `UPDATE checkout.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`,
      [old],
    );

    expect(await app.get(ExpiredIdempotencyKeys).purge()).toBeGreaterThanOrEqual(1);

    const left = await app.database.query<{ key: string }>(
      `SELECT key FROM checkout.idempotency_keys WHERE key = ANY($1)`,
      [[old, fresh]],
    );
    expect(left.map((row) => row.key)).toEqual([fresh]);
  });

  it('when requests with one key race, then one checkout is created and all get its answer', async () => {
    const key = `race-${randomUUID()}`;
    const body = { userId, planId: 'premium', paymentMethod: 'pm_card_ok' };

    const answers = await Promise.all(Array.from({ length: 8 }, () => post(key, body)));

    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await checkoutsWithKey(key)).toBe(1);
  });

  it('when the key is reused with a different body, then it is refused with 422 and nothing is written', async () => {
    const key = `reuse-${randomUUID()}`;
    await post(key, { userId, planId: 'basic', paymentMethod: 'pm_card_ok' }).expect(202);
    const [{ n: before }] = await app.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM checkout.checkouts`,
    );

    const refused = await post(key, { userId, planId: 'premium', paymentMethod: 'pm_card_ok' }).expect(422);

    expect(refused.body).toMatchObject({ statusCode: 422, message: expect.stringContaining('different request') });
    const [{ n: after }] = await app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM checkout.checkouts`);
    expect(after).toBe(before);
  });

  it('when a request with the key is still in flight, then another gets 409 once it has waited long enough', async () => {
    const key = `slow-${randomUUID()}`;
    const holder = await app.database.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `checkout.idempotency:buyer:${userId}:${key}`,
      ]);

      const answer = await post(key, { userId, planId: 'basic', paymentMethod: 'pm_card_ok' }).expect(409);

      expect(answer.body.message).toContain('still in flight');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await checkoutsWithKey(key)).toBe(0);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
  ])('when the key is %s, then the request is refused with 400', async (_, key) => {
    const answer = await post(key, { userId, planId: 'basic', paymentMethod: 'pm_card_ok' }).expect(400);

    expect(answer.body.message).toContain('Idempotency-Key');
  });
});
