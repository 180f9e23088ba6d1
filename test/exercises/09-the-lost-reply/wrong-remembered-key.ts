import { randomUUID } from 'node:crypto';
import type { GatewayCall } from './exercise';

/**
 * Exercise 09, a wrong answer people write: a random key per checkout, remembered so that every
 * try sends the same one. Remembered in memory: the process that dies after the gateway's answer
 * takes the key with it, and the new process makes up another, a second purchase to the gateway.
 */
const keys = new Map<string, string>();

export function idempotencyKey({ checkoutId, step }: GatewayCall): string {
  const known = keys.get(`${checkoutId}:${step}`);
  if (known) return known;
  const key = randomUUID();
  keys.set(`${checkoutId}:${step}`, key);
  return key;
}
