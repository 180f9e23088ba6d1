/**
 * Exercise 08: design the saga. What starter.ts, solution.ts and every wrong-*.ts export.
 *
 * A saga here is data: the steps of a checkout in the order they run, each with what undoes it.
 * saga-runner.ts reads it and calls the real modules (the card gateway, content, the mail server).
 */

/** What a step does, in the module that owns it. */
export type Action =
  /** billing: hold the plan's price on the buyer's card (nothing is charged yet). */
  | 'authorize-payment'
  /** content: let the buyer use the plan; says no where the plan is not licensed. */
  | 'grant-access'
  /** billing: take the money that was held; the card issuer may still say no. */
  | 'capture-payment'
  /** notifications: welcome the buyer by email. */
  | 'send-welcome-email';

/** What undoes an action that took effect. There is no "unsend" for an email. */
export type Compensation =
  /** billing: release a hold; nothing ever shows on the buyer's statement. */
  | 'void-authorization'
  /** content: take the access back. */
  | 'revoke-access'
  /** billing: give captured money back; the charge and the refund both show on the statement. */
  | 'refund-payment';

export interface SagaStep {
  action: Action;
  /** Run, in reverse order, for every step that took effect when a later step says no. */
  compensation?: Compensation;
}

/** Your checkout saga: its steps, first to last. */
export type SagaDesign = readonly SagaStep[];

/** What each of starter.ts, solution.ts and wrong-*.ts exports. */
export interface DesignTheSaga {
  checkoutSaga: SagaDesign;
}
