import { createHash } from 'node:crypto';
import type { GatewayCall } from './exercise';

/**
 * A learner's words: "The same request must get the same key, so the key is a hash of the
 * request: whatever billing asks, the gateway can tell whether it asked it before."
 *
 * What it gets wrong: the call is not the same on the second send; it says which send it is. The
 * hash of "attempt 2" is a new key, and a new key is a new purchase to the gateway. A key must
 * name the thing asked for, not everything about the asking.
 */
export function idempotencyKey(call: GatewayCall): string {
  return createHash('sha256').update(JSON.stringify(call)).digest('hex');
}
