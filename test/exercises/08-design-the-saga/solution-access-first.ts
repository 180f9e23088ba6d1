import type { SagaDesign } from './exercise';

/**
 * The pivot rule with the other order of the two reversible steps: ask content first (the step
 * most likely to say no, and then no money was ever held), then hold the money. Both come before
 * the capture, both are undone if it is declined, and the email goes last.
 */
export const checkoutSaga: SagaDesign = [
  // Compensable, and it may say no: asked before anything touches the buyer's card.
  { action: 'grant-access', compensation: 'revoke-access' },
  // Compensable: a released hold never shows on the statement.
  { action: 'authorize-payment', compensation: 'void-authorization' },
  // The pivot: nothing after it can say no.
  { action: 'capture-payment' },
  // Irreversible: last.
  { action: 'send-welcome-email' },
];
