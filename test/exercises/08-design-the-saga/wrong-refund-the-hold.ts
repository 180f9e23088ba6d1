import type { SagaDesign } from './exercise';

/**
 * A learner's words: "Giving the money back is a refund. The order is the pivot rule's; if access
 * is refused or the capture declined, the authorization is refunded."
 *
 * What it gets wrong: an authorization took nothing, it holds the money; there is nothing to
 * refund. Only a void releases a hold, and without one the buyer's money stays blocked on the card.
 */
export const checkoutSaga: SagaDesign = [
  { action: 'authorize-payment', compensation: 'refund-payment' },
  { action: 'grant-access', compensation: 'revoke-access' },
  { action: 'capture-payment' },
  { action: 'send-welcome-email' },
];
