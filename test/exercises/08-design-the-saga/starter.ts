import type { SagaDesign } from './exercise';

/**
 * The checkout as it is often first written: charge the card, then deliver, and if anything goes
 * wrong, give the money back. Run `npm run exercise -- 08` and read what the buyer's statement
 * shows when the plan cannot be sold in their country.
 *
 * TODO: reorder the steps and choose their compensations so that a checkout that cannot go
 * through costs the buyer nothing (no charge, no money left held), never charges without access,
 * and never sends a welcome email for a sale that did not happen.
 */
export const checkoutSaga: SagaDesign = [
  { action: 'authorize-payment', compensation: 'void-authorization' },
  { action: 'capture-payment', compensation: 'refund-payment' },
  { action: 'grant-access', compensation: 'revoke-access' },
  { action: 'send-welcome-email' },
];
