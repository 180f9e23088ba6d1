import type { SagaDesign } from './exercise';

/**
 * A learner's words: "A refund shows on the buyer's statement and a void does not, so the
 * capture's compensation becomes a void. The order stays: take the money, then deliver."
 *
 * What it gets wrong: a void releases a hold, and once the money is captured there is no hold
 * left to release. The gateway refuses the void of a captured payment, and the buyer stays charged
 * for a plan they were refused.
 */
export const checkoutSaga: SagaDesign = [
  { action: 'authorize-payment', compensation: 'void-authorization' },
  { action: 'capture-payment', compensation: 'void-authorization' },
  { action: 'grant-access', compensation: 'revoke-access' },
  { action: 'send-welcome-email' },
];
