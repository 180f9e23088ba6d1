import type { SagaDesign } from './exercise';

/**
 * A plausible wrong answer: the order is the pivot rule's, but access has no compensation
 * ("the buyer can keep it, it costs us nothing"). When the capture is declined, the hold is
 * released, and the buyer keeps a plan nobody paid for.
 */
export const checkoutSaga: SagaDesign = [
  { action: 'authorize-payment', compensation: 'void-authorization' },
  { action: 'grant-access' },
  { action: 'capture-payment' },
  { action: 'send-welcome-email' },
];
