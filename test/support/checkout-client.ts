import { randomUUID } from 'node:crypto';
import { Invariants, type InvariantReport } from '../../src/operations/invariants';
import { BillingApi } from '../../src/modules/billing';
import { effectsAt } from './at-the-participants';
import { eventually } from './eventually';
import { ADMIN_TOKEN, type TestApp } from './test-app';

/** What leaves the system for one checkout (see CheckoutClient.leftTheSystem), by how it ends. */
export const LEFT = {
  sold: { authorize: 1, capture: 1, void: 0, refund: 0, welcomeEmails: 1 },
  undone: { authorize: 1, capture: 0, void: 1, refund: 0, welcomeEmails: 0 },
  nothing: { authorize: 0, capture: 0, void: 0, refund: 0, welcomeEmails: 0 },
} as const;

/** A user as POST /users answers it: with the buyer's bearer token. */
export interface Buyer {
  id: string;
  token: string;
  email: string;
  name: string;
  country: string;
  status: string;
}

/**
 * What tests do through the REST API, the way a client would. It remembers each buyer's token and
 * whose each checkout is: a checkout is started and read with its buyer's token, and with the
 * operator's (ADMIN_TOKEN) when the client did not create that buyer (an unknown user, say).
 */
export class CheckoutClient {
  private readonly tokens = new Map<string, string>();
  private readonly owners = new Map<string, string>();

  constructor(private readonly app: TestApp) {}

  /** A body for POST /users, with an email no one has yet. */
  static userBody(overrides: { country?: string; email?: string; name?: string } = {}): Record<string, string> {
    return { email: `buyer-${randomUUID()}@example.com`, name: 'A Buyer', country: 'PT', ...overrides };
  }

  /** A body for POST /checkouts: the basic plan, a card that works. */
  static checkoutBody(body: { userId?: string; planId?: string; paymentMethod?: string; mode?: string } = {}) {
    return { planId: 'basic', paymentMethod: 'pm_card_ok', ...body };
  }

  /** POST /users, not yet sent: for tests about the answer itself (a 429, say). */
  signUp(overrides: { country?: string; email?: string; name?: string } = {}) {
    return this.app.http().post('/users').send(CheckoutClient.userBody(overrides));
  }

  async createUser(overrides: { country?: string; email?: string; name?: string } = {}): Promise<Buyer> {
    const response = await this.signUp(overrides).expect(201);
    const buyer = response.body as Buyer;
    this.tokens.set(buyer.id, buyer.token);
    return buyer;
  }

  /** The Authorization header of this buyer, or the operator's when the client does not know them. */
  authFor(userId?: string): { authorization: string } {
    const token = (userId && this.tokens.get(userId.toLowerCase())) || ADMIN_TOKEN;
    return { authorization: `Bearer ${token}` };
  }

  /** A supertest request, sent as this buyer (see `admin` for the operator). */
  as<T extends { set(name: string, value: string): T }>(userId: string, request: T): T {
    return request.set('authorization', this.authFor(userId).authorization);
  }

  /** Blocks the buyer; their token opens nothing from then on (403), so the operator acts for them. */
  async blockUser(id: string): Promise<void> {
    await this.app.http().post(`/admin/users/${id}/block`).set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
    this.tokens.delete(id.toLowerCase());
  }

  /**
   * Starts a checkout with the buyer's token (headers may override it) and returns its id; fails
   * unless the answer is 202.
   */
  async start(
    body: { userId: string; planId?: string; paymentMethod?: string; mode?: string },
    headers: Record<string, string> = {},
  ): Promise<string> {
    const response = await this.app
      .http()
      .post('/checkouts')
      .set({ ...this.authFor(body.userId), ...headers })
      .send(CheckoutClient.checkoutBody(body))
      .expect(202);
    this.owners.set(response.body.id, body.userId.toLowerCase());
    return response.body.id;
  }

  /** Reads a checkout as its buyer. */
  async get(id: string): Promise<Record<string, unknown>> {
    return (
      await this.app
        .http()
        .get(`/checkouts/${id}`)
        .set(this.authFor(this.owners.get(id)))
        .expect(200)
    ).body;
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

  /** Waits until the saga of `id` has sent `step`: before, no attempt of it can have acted. */
  async untilSagaSent(id: string, step: string): Promise<void> {
    await eventually(
      async () => {
        const [sent] = await this.app.database.query(
          `SELECT 1 FROM checkout.saga_steps WHERE saga_id = $1 AND step = $2`,
          [id, step],
        );
        expect(sent).toBeDefined();
      },
      { timeoutMs: 20_000, what: `the saga of ${id} to send ${step}` },
    );
  }

  async timeline(id: string): Promise<Array<Record<string, unknown>>> {
    return (
      await this.app
        .http()
        .get(`/checkouts/${id}/timeline`)
        .set(this.authFor(this.owners.get(id)))
        .expect(200)
    ).body;
  }

  invariants(checkoutIds?: string[]): Promise<InvariantReport> {
    return this.app.get(Invariants).check(checkoutIds);
  }

  admin<T extends { set(name: string, value: string): T }>(request: T): T {
    return request.set('authorization', `Bearer ${ADMIN_TOKEN}`);
  }

  /**
   * What left the system for a checkout: the operations the card gateway service approved under
   * it (from its listing), and the welcome emails the mail transport handed over. Counted where a
   * 2 can show up.
   */
  async leftTheSystem(checkoutId: string): Promise<{
    authorize: number;
    capture: number;
    void: number;
    refund: number;
    welcomeEmails: number;
  }> {
    const db = this.app.database;
    const gateway = this.app.get(BillingApi).participants.find(({ name }) => name === 'card-gateway')!;
    const effects = await effectsAt(gateway.url, checkoutId);
    const [{ n: welcomeEmails }] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notifications.mail_handovers WHERE checkout_id = $1 AND template = 'welcome'`,
      [checkoutId],
    );
    return { ...effects, welcomeEmails };
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
