import type { CheckoutMode } from '../checkout.config';
import type { NewCheckout } from '../database/checkouts.repository';

/**
 * A checkout's mode (its coordination style), as the code runs it: `start` sets a new checkout
 * going in that style, inside the transaction that created it, so whatever it writes (a first
 * event, a saga and its first command) commits with the checkout or not at all.
 */
export abstract class Mode {
  abstract readonly name: CheckoutMode;
  abstract start(checkout: NewCheckout): Promise<void>;
}

/** Both modes, found by name. */
export const MODES = Symbol('MODES');
