/**
 * Exercise 09: the lost reply. What starter.ts, solution.ts and every wrong-*.ts export.
 */

/** One call of a saga step to the card gateway. */
export interface GatewayCall {
  /** The checkout: the buyer's purchase, the same on every call about it. */
  checkoutId: string;
  /** The buyer who checks out: the same on every call about their checkouts, this one and the next. */
  userId: string;
  /** The step making the call. */
  step: 'billing.authorize-payment';
  /** Which send of the step this is: 1, then 2 when the orchestrator heard nothing and asked again. */
  attempt: number;
}

export interface TheLostReply {
  /**
   * The idempotency key billing sends with the call. The gateway answers a key it has seen with
   * its first answer and does nothing more; a key it has not seen is a new request.
   */
  idempotencyKey(call: GatewayCall): string;
}
