import { Injectable } from '@nestjs/common';
import { keyOfStep } from './core/checkout-steps';
import { CheckoutsRepository } from './database/checkouts.repository';
import type { StartCheckoutRequest } from './start-checkout/start-checkout.dto';
import { StartCheckout, type StartedCheckout } from './start-checkout/start-checkout.use-case';

/**
 * What code outside the checkout may ask it: starting one without HTTP, and what a mode of
 * another engine needs to carry one as the saga would (the bench's peers).
 */
@Injectable()
export class CheckoutApi {
  constructor(
    private readonly startCheckout: StartCheckout,
    private readonly checkouts: CheckoutsRepository,
  ) {}

  /** As POST /checkouts, without an Idempotency-Key. */
  start(request: StartCheckoutRequest): Promise<StartedCheckout> {
    return this.startCheckout.execute(request);
  }

  /** The idempotency key the saga gives a step's command: the same for an action and its compensation. */
  keyOfStep(checkoutId: string, step: string): string {
    return keyOfStep(checkoutId, step);
  }

  /** Sets a PENDING checkout's progress in the current transaction, with its COMMIT. */
  setProgress(id: string, status: string, step: string, reason: string | null): Promise<void> {
    return this.checkouts.setProgressWithNext(id, status, step, reason);
  }
}
