import { randomUUID } from 'node:crypto';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { TestApp } from '../support/test-app';

describe('Many checkouts at once', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start();
    client = new CheckoutClient(app);
  });
  afterAll(() => app.stop());

  it('when 200 checkouts of every outcome run concurrently, then all end and no invariant is violated', async () => {
    const [br, jp, pt] = await Promise.all([
      client.createUser({ country: 'BR' }),
      client.createUser({ country: 'JP' }),
      client.createUser({ country: 'PT' }),
    ]);
    const blocked = await client.createUser();
    await client.blockUser(blocked.id);
    const mix = [
      { userId: br.id, planId: 'premium', paymentMethod: 'pm_card_ok', expected: 'COMPLETED' },
      { userId: pt.id, planId: 'basic', paymentMethod: 'pm_card_ok', expected: 'COMPLETED' },
      { userId: jp.id, planId: 'premium', paymentMethod: 'pm_card_ok', expected: 'FAILED' },
      { userId: pt.id, planId: 'basic', paymentMethod: 'pm_card_declined', expected: 'FAILED' },
      { userId: br.id, planId: 'basic', paymentMethod: 'pm_card_capture_declined', expected: 'FAILED' },
      { userId: blocked.id, planId: 'basic', paymentMethod: 'pm_card_ok', expected: 'REJECTED' },
      { userId: randomUUID(), planId: 'basic', paymentMethod: 'pm_card_ok', expected: 'REJECTED' },
    ];
    const runs = Array.from({ length: 200 }, (_, i) => mix[i % mix.length]);

    const ids = await Promise.all(runs.map(({ expected: _, ...body }) => client.start(body)));

    await eventually(
      async () => {
        const [{ pending }] = await app.database.query<{ pending: number }>(
          `SELECT count(*)::int AS pending FROM checkout.checkouts WHERE id = ANY($1) AND status = 'PENDING'`,
          [ids],
        );
        expect(pending).toBe(0);
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    const statuses = await app.database.query<{ id: string; status: string }>(
      `SELECT id, status FROM checkout.checkouts WHERE id = ANY($1)`,
      [ids],
    );
    const statusOf = new Map(statuses.map((row) => [row.id, row.status]));
    expect(ids.map((id) => statusOf.get(id))).toEqual(runs.map((run) => run.expected));
    const report = await client.admin(app.http().get('/admin/invariants')).expect(200);
    expect(report.body.checked).toBeGreaterThanOrEqual(200);
    expect(report.body.violations).toEqual([]);
  });
});
