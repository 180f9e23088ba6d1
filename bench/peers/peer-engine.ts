import type { NewCheckout } from '../../src/modules/checkout';
import type { PeerCheckout } from './checkout-flow';

/** The engines a peer checkout can run on (`PEER`). */
export const PEER_ENGINES = ['dbos', 'graphile-worker'] as const;
export type PeerEngineName = (typeof PEER_ENGINES)[number];

/**
 * What carries a peer's checkout from step to step. `start` is called in the transaction that
 * writes the new checkout (our StartCheckout's, with its Idempotency-Key record): whatever it
 * writes there commits with the checkout.
 */
export abstract class PeerEngine {
  abstract start(checkout: NewCheckout): Promise<void>;
}

export const peerCheckoutOf = (row: NewCheckout): PeerCheckout => ({
  id: row.id,
  userId: row.user_id,
  planId: row.plan_id,
  paymentMethod: row.payment_method,
  correlationId: row.correlation_id,
});
