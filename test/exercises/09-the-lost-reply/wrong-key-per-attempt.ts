import type { GatewayCall } from './exercise';

/**
 * A plausible wrong answer: the key names the checkout and the step, and also the attempt, "so
 * that each try can be traced". But the second try is then, to the gateway, a second purchase.
 */
export function idempotencyKey({ checkoutId, step, attempt }: GatewayCall): string {
  return `${checkoutId}:${step}:attempt-${attempt}`;
}
