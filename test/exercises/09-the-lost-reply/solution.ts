import type { GatewayCall } from './exercise';

/**
 * One key per step of a checkout, the same on every send: made only of what names the thing being
 * asked for, never of anything that changes between tries (the attempt, the time, a random id).
 * The second send then gets the first answer back, and the money is held once.
 */
export function idempotencyKey({ checkoutId, step }: GatewayCall): string {
  return `${checkoutId}:${step}`;
}
