import type { CheckoutMode } from '../checkout.config';
import type { CheckoutRow } from '../database/checkouts.repository';

/**
 * Sets a new checkout going, in its own style, inside the transaction that created it: whatever
 * it writes (a first event, a saga and its first command) commits with the checkout or not at all.
 */
export abstract class CheckoutCoordinator {
  abstract readonly mode: CheckoutMode;
  abstract start(checkout: CheckoutRow): Promise<void>;
}

/** The coordinators of both modes, found by mode. */
export const CHECKOUT_COORDINATORS = Symbol('CHECKOUT_COORDINATORS');
