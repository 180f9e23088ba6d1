import { randomUUID } from 'node:crypto';
import type { ProcessClient } from './process-client';

export type Mode = 'choreography' | 'orchestration';
export const MODES: Mode[] = ['choreography', 'orchestration'];

/** A kind of checkout, and the status it must end in whatever happens on the way. */
export interface Scenario {
  name: string;
  buyer: 'known' | 'unknown' | 'blocked';
  country: string;
  planId: string;
  paymentMethod: string;
  expected: 'COMPLETED' | 'REJECTED' | 'FAILED';
}

export const SCENARIOS: Scenario[] = [
  { name: 'happy', buyer: 'known', country: 'PT', planId: 'basic', paymentMethod: 'pm_card_ok', expected: 'COMPLETED' },
  {
    name: 'unknown user',
    buyer: 'unknown',
    country: 'PT',
    planId: 'basic',
    paymentMethod: 'pm_card_ok',
    expected: 'REJECTED',
  },
  {
    name: 'blocked user',
    buyer: 'blocked',
    country: 'PT',
    planId: 'basic',
    paymentMethod: 'pm_card_ok',
    expected: 'REJECTED',
  },
  {
    name: 'declined card',
    buyer: 'known',
    country: 'PT',
    planId: 'basic',
    paymentMethod: 'pm_card_declined',
    expected: 'FAILED',
  },
  {
    name: 'unlicensed country',
    buyer: 'known',
    country: 'JP',
    planId: 'premium',
    paymentMethod: 'pm_card_ok',
    expected: 'FAILED',
  },
  {
    name: 'capture declined',
    buyer: 'known',
    country: 'PT',
    planId: 'basic',
    paymentMethod: 'pm_card_capture_declined',
    expected: 'FAILED',
  },
];

export const HAPPY = SCENARIOS[0];

/** A checkout a test started, with what it must end in; `email` is its buyer's, unique to it. */
export interface StartedCheckout {
  id: string;
  mode: Mode;
  scenario: string;
  expected: Scenario['expected'];
  email?: string;
}

/**
 * A checkout of this scenario, ready to be asked for: its buyer exists (none for an unknown
 * buyer), and the request carries an Idempotency-Key, so that a request whose answer a crash
 * lost can be sent again, to any process, without starting a second checkout.
 */
export interface CheckoutRequest {
  scenario: Scenario;
  mode: Mode;
  body: { userId: string; planId: string; paymentMethod: string; mode: Mode };
  idempotencyKey: string;
  email?: string;
  /** The buyer's bearer token: a key belongs to whoever sent it, so a resend must come from them. */
  token?: string;
}

export async function prepareScenario(client: ProcessClient, scenario: Scenario, mode: Mode): Promise<CheckoutRequest> {
  let userId: string = randomUUID();
  let email: string | undefined;
  let token: string | undefined;
  if (scenario.buyer !== 'unknown') {
    ({ id: userId, email, token } = await client.createUser({ country: scenario.country }));
    if (scenario.buyer === 'blocked') await client.blockUser(userId);
  }
  return {
    scenario,
    mode,
    body: { userId, planId: scenario.planId, paymentMethod: scenario.paymentMethod, mode },
    idempotencyKey: `checkout-${randomUUID()}`,
    email,
    // A blocked buyer's token is refused (403): the operator starts their checkout, which identity rejects.
    token: scenario.buyer === 'blocked' ? undefined : token,
  };
}

/** Sends the request (again: the same key answers the same checkout) and returns the checkout it started. */
export async function startCheckout(client: ProcessClient, request: CheckoutRequest): Promise<StartedCheckout> {
  const id = await client.start(request.body, {
    'idempotency-key': request.idempotencyKey,
    ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
  });
  const { scenario, mode, email } = request;
  return { id, mode, scenario: scenario.name, expected: scenario.expected, email };
}

/** Prepares and starts one checkout of this scenario. */
export async function startScenario(client: ProcessClient, scenario: Scenario, mode: Mode): Promise<StartedCheckout> {
  return startCheckout(client, await prepareScenario(client, scenario, mode));
}
