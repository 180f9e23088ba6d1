import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';
import { ADMIN_TOKEN } from './test-env';

export interface FaultRule {
  point: string;
  action: string;
  times?: number;
}

/**
 * What tests do through the REST API of an app they reach only by URL (a child process, one of
 * several replicas): CheckoutClient's counterpart for apps that are not in the test's process.
 * Every call fails loudly unless it gets the answer it expects.
 */
export class ProcessClient {
  /** Each buyer's bearer token, from the answer to POST /users. */
  private readonly tokens = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async createUser(
    overrides: { country?: string; email?: string; name?: string } = {},
  ): Promise<{ id: string; email: string; token: string }> {
    const buyer = await this.call<{ id: string; email: string; token: string }>('POST', '/users', 201, {
      email: `buyer-${randomUUID()}@example.com`,
      name: 'A Buyer',
      country: 'PT',
      ...overrides,
    });
    this.tokens.set(buyer.id, buyer.token);
    return buyer;
  }

  /** Blocks the buyer; their token opens nothing from then on (403), so the operator acts for them. */
  async blockUser(id: string): Promise<void> {
    await this.call('POST', `/admin/users/${id}/block`, 200);
    this.tokens.delete(id);
  }

  /**
   * Starts a checkout and returns its id; fails unless the answer is 202. A buyer this client
   * created checks out with their own token; anyone else (an unknown user) through the operator.
   */
  async start(
    body: { userId: string; planId?: string; paymentMethod?: string; mode?: string },
    headers: Record<string, string> = {},
  ): Promise<string> {
    const answer = await this.call<{ id: string }>(
      'POST',
      '/checkouts',
      202,
      { planId: 'basic', paymentMethod: 'pm_card_ok', ...body },
      { ...this.authFor(body.userId), ...headers },
    );
    return answer.id;
  }

  /** Waits until the checkout has one of these statuses, and returns it. */
  until(id: string, statuses: string[], timeoutMs = 30_000): Promise<{ id: string; status: string; step: string }> {
    return eventually(
      async () => {
        const checkout = await this.get(id);
        if (!statuses.includes(checkout.status)) throw new Error(`checkout ${id} is ${checkout.status}`);
        return checkout;
      },
      { timeoutMs, what: `checkout ${id} to be ${statuses.join(' or ')}` },
    );
  }

  private authFor(userId: string): { authorization: string } {
    return { authorization: `Bearer ${this.tokens.get(userId) ?? ADMIN_TOKEN}` };
  }

  get(id: string): Promise<{ id: string; status: string; step: string; updatedAt: string; createdAt: string }> {
    return this.call('GET', `/checkouts/${id}`, 200);
  }

  async setFaults(rules: FaultRule[]): Promise<void> {
    await this.call('PUT', '/admin/faults', 200, { rules });
  }

  invariants(): Promise<{ checked: number; violations: Array<Record<string, unknown>> }> {
    return this.call('GET', '/admin/invariants', 200);
  }

  async call<T>(
    method: string,
    path: string,
    expected: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}`, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000), // generous: a loaded machine answers slowly
    });
    const text = await response.text();
    if (response.status !== expected) {
      throw new Error(`${method} ${path} answered ${response.status}, not ${expected}: ${text}`);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
