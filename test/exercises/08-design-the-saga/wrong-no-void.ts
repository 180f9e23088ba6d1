import type { SagaDesign } from './exercise';

/**
 * A plausible wrong answer: the order is the pivot rule's, but the authorization has no
 * compensation ("nothing was charged, so there is nothing to undo"). A hold is not a charge, but
 * it is the buyer's money all the same, blocked on their card until someone releases it.
 */
export const checkoutSaga: SagaDesign = [
  { action: 'authorize-payment' },
  { action: 'grant-access', compensation: 'revoke-access' },
  { action: 'capture-payment' },
  { action: 'send-welcome-email' },
];
