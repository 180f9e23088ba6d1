import { randomUUID } from 'node:crypto';
import { Invariants, type InvariantReport } from '../../src/operations/invariants';
import { eventually } from './eventually';
import { ADMIN_TOKEN, type TestApp } from './test-app';

/** What leaves the system for one checkout (see CheckoutClient.leftTheSystem), by how it ends. */
export const LEFT = {
  sold: { authorize: 1, capture: 1, void: 0, refund: 0, welcomeEmails: 1 },
  undone: { authorize: 1, capture: 0, void: 1, refund: 0, welcomeEmails: 0 },
  nothing: { authorize: 0, capture: 0, void: 0, refund: 0, welcomeEmails: 0 },
} as const;

/** What tests do through the REST API, the way a client would. */
export class CheckoutClient {
  constructor(private readonly app: TestApp) {}

  async createUser(overrides: { country?: string; email?: string; name?: string } = {}): Promise<{ id: string }> {
    const response = await this.app
      .http()
      .post('/users')
      .send({ email: `buyer-${randomUUID()}@example.com`, name: 'A Buyer', country: 'PT', ...overrides })
      .expect(201);
    return response.body;
  }

  async blockUser(id: string): Promise<void> {
    await this.app.http().post(`/admin/users/${id}/block`).set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
  }

  /** Starts a checkout and returns its id; fails unless the answer is 202. */
  async start(
    body: { userId: string; planId?: string; paymentMethod?: string; mode?: string },
    headers: Record<string, string> = {},
  ): Promise<string> {
    const response = await this.app
      .http()
      .post('/checkouts')
      .set(headers)
      .send({ planId: 'basic', paymentMethod: 'pm_card_ok', ...body })
      .expect(202);
    return response.body.id;
  }

  async get(id: string): Promise<Record<string, unknown>> {
    return (await this.app.http().get(`/checkouts/${id}`).expect(200)).body;
  }

  /** Waits until the checkout has one of these statuses, and returns it. */
  async until(id: string, statuses: string[], timeoutMs = 20_000): Promise<Record<string, unknown>> {
    return eventually(
      async () => {
        const checkout = await this.get(id);
        expect(statuses).toContain(checkout.status);
        return checkout;
      },
      { timeoutMs, what: `checkout ${id} to be ${statuses.join(' or ')}` },
    );
  }

  async timeline(id: string): Promise<Array<Record<string, unknown>>> {
    return (await this.app.http().get(`/checkouts/${id}/timeline`).expect(200)).body;
  }

  invariants(checkoutIds?: string[]): Promise<InvariantReport> {
    return this.app.get(Invariants).check(checkoutIds);
  }

  admin<T extends { set(name: string, value: string): T }>(request: T): T {
    return request.set('authorization', `Bearer ${ADMIN_TOKEN}`);
  }

  /**
   * What left the system for a checkout: the operations the card gateway approved under it, and
   * the welcome emails the mail transport handed over. Counted where a 2 can show up.
   */
  async leftTheSystem(checkoutId: string): Promise<{
    authorize: number;
    capture: number;
    void: number;
    refund: number;
    welcomeEmails: number;
  }> {
    const db = this.app.database;
    const operations = await db.query<{ operation: string; n: number }>(
      `SELECT operation, count(*)::int AS n FROM billing.gateway_requests
        WHERE reference = $1 AND approved GROUP BY operation`,
      [checkoutId],
    );
    const [{ n: welcomeEmails }] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notifications.mail_handovers WHERE checkout_id = $1 AND template = 'welcome'`,
      [checkoutId],
    );
    const count = (operation: string) => operations.find((row) => row.operation === operation)?.n ?? 0;
    return {
      authorize: count('authorize'),
      capture: count('capture'),
      void: count('void'),
      refund: count('refund'),
      welcomeEmails,
    };
  }

  /** What each module recorded about a checkout: the facts the invariants are about. */
  async effects(checkoutId: string): Promise<{ payment?: string; entitlement?: string; emails: number }> {
    const db = this.app.database;
    const [payment] = await db.query<{ status: string }>(`SELECT status FROM billing.payments WHERE checkout_id = $1`, [
      checkoutId,
    ]);
    const [entitlement] = await db.query<{ status: string }>(
      `SELECT status FROM content.entitlements WHERE checkout_id = $1`,
      [checkoutId],
    );
    const [{ n }] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notifications.emails WHERE checkout_id = $1`,
      [checkoutId],
    );
    return { payment: payment?.status, entitlement: entitlement?.status, emails: n };
  }
}
