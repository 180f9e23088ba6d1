import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN } from './test-app';

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
  constructor(readonly baseUrl: string) {}

  async createUser(
    overrides: { country?: string; email?: string; name?: string } = {},
  ): Promise<{ id: string; email: string }> {
    return this.call('POST', '/users', 201, {
      email: `buyer-${randomUUID()}@example.com`,
      name: 'A Buyer',
      country: 'PT',
      ...overrides,
    });
  }

  async blockUser(id: string): Promise<void> {
    await this.call('POST', `/admin/users/${id}/block`, 200);
  }

  /** Starts a checkout and returns its id; fails unless the answer is 202. */
  async start(
    body: { userId: string; planId?: string; paymentMethod?: string; mode?: string },
    headers: Record<string, string> = {},
  ): Promise<string> {
    const answer = await this.call<{ id: string }>(
      'POST',
      '/checkouts',
      202,
      { planId: 'basic', paymentMethod: 'pm_card_ok', ...body },
      headers,
    );
    return answer.id;
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
