import type { GatewayCall } from './exercise';

/**
 * A learner's words: "The key must not change between tries, so nothing about the try goes in:
 * no attempt, no random part. The buyer and the step are the same on every try; that is the key."
 *
 * What it gets wrong: the buyer is the same on every try, and on every checkout of theirs too.
 * Their next purchase reaches the gateway under the same key, and is answered with the first
 * purchase's hold: nothing is held for it.
 */
export function idempotencyKey({ userId, step }: GatewayCall): string {
  return `${userId}:${step}`;
}
