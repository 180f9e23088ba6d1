import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';

/**
 * What CheckoutClient does, for an app that runs as its own process (see AppProcess): users and
 * checkouts are created through the REST API, the way a client would.
 */
export class ProcessCheckoutClient {
  constructor(private readonly baseUrl: string) {}

  private async call(method: string, path: string, body?: object, headers: Record<string, string> = {}) {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> };
  }

  async createUser(): Promise<{ id: string }> {
    const { status, body } = await this.call('POST', '/users', {
      email: `buyer-${randomUUID()}@example.com`,
      name: 'A Buyer',
      country: 'PT',
    });
    if (status !== 201) throw new Error(`POST /users answered ${status}: ${JSON.stringify(body)}`);
    return body as { id: string };
  }

  /** Starts a checkout and returns its id; fails unless the answer is 202. */
  async start(
    body: { userId: string; planId?: string; paymentMethod?: string; mode?: string },
    headers: Record<string, string> = {},
  ): Promise<string> {
    const answer = await this.call(
      'POST',
      '/checkouts',
      { planId: 'basic', paymentMethod: 'pm_card_ok', ...body },
      headers,
    );
    if (answer.status !== 202)
      throw new Error(`POST /checkouts answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.id as string;
  }

  /** Waits until the checkout has one of these statuses, and returns it. */
  until(id: string, statuses: string[], timeoutMs = 30_000): Promise<Record<string, unknown>> {
    return eventually(
      async () => {
        const { body } = await this.call('GET', `/checkouts/${id}`);
        if (!statuses.includes(String(body.status))) throw new Error(`checkout ${id} is ${String(body.status)}`);
        return body;
      },
      { timeoutMs, what: `checkout ${id} to be ${statuses.join(' or ')}` },
    );
  }
}
