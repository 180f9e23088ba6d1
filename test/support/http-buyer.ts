import { randomUUID } from 'node:crypto';

/**
 * A buyer and their checkouts over plain HTTP (fetch), for apps that run as their own process
 * (AppProcess) and for scripts: the one place outside CheckoutClient that knows how a buyer signs
 * up and what a checkout request carries.
 */
export interface HttpBuyer {
  id: string;
  token: string;
}

/** Signs a buyer up at `baseUrl` and returns their id and bearer token; throws unless 201. */
export async function createBuyer(
  baseUrl: string,
  overrides: { email?: string; name?: string; country?: string } = {},
): Promise<HttpBuyer> {
  const response = await fetch(`${baseUrl}/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `buyer-${randomUUID()}@example.com`, name: 'A Buyer', country: 'PT', ...overrides }),
  });
  const body = (await response.json()) as HttpBuyer;
  if (response.status !== 201) throw new Error(`POST /users answered ${response.status}: ${JSON.stringify(body)}`);
  return { id: body.id, token: body.token };
}

/** Starts a checkout as this buyer and returns the answer as it came (the caller checks the status). */
export function startCheckout(
  baseUrl: string,
  buyer: HttpBuyer,
  body: { planId?: string; paymentMethod?: string; mode?: string } = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/checkouts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${buyer.token}`, ...headers },
    body: JSON.stringify({ userId: buyer.id, planId: 'basic', paymentMethod: 'pm_card_ok', ...body }),
  });
}
