import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

/**
 * Exercise 10: a compensation that fails. What starter.ts, solution.ts and every wrong-*.ts export.
 */
export interface CompensationThatFails {
  /**
   * Billing's compensation when content refused the buyer access: release the money held on their
   * card. `voidAtGateway()` asks the card gateway to void the authorization, records it, and
   * resolves with what was done; it throws when the gateway did not do it.
   *
   * What you return is what billing announces (the hold is released, the checkout FAILED). What
   * you throw goes back to the queue, which tries the delivery again with backoff, and after its
   * last attempt sets it aside as a dead letter: the checkout then waits for a person
   * (INTERVENTION), who sees what is at stake.
   */
  releaseHold(checkoutId: string, voidAtGateway: () => Promise<VoidOutcome>): Promise<VoidOutcome>;
}
