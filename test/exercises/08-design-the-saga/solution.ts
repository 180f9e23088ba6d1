import type { SagaDesign } from './exercise';

/**
 * The pivot rule: the steps that are cheap and perfectly undone go first, the point of no return
 * (the capture) comes once nothing else can say no, and after it only what cannot be undone and is
 * retried until it is done (the email).
 */
export const checkoutSaga: SagaDesign = [
  // Compensable: a hold that is released never shows on the buyer's statement.
  { action: 'authorize-payment', compensation: 'void-authorization' },
  // Compensable, and it can say no (the plan is not licensed in the buyer's country): before the money.
  { action: 'grant-access', compensation: 'revoke-access' },
  // The pivot: once the money is taken, the checkout only goes forward. A declined capture undoes the two above.
  { action: 'capture-payment' },
  // Irreversible: an email cannot be unsent, so it goes last, after the money.
  { action: 'send-welcome-email' },
];
