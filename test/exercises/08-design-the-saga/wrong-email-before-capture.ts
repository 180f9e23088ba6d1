import type { SagaDesign } from './exercise';

/**
 * A plausible wrong answer: welcome the buyer as soon as they have access, and take the money
 * last. The order of the reversible steps is right, but the email, which nothing can undo, goes
 * out before the capture, which can still be declined.
 */
export const checkoutSaga: SagaDesign = [
  { action: 'authorize-payment', compensation: 'void-authorization' },
  { action: 'grant-access', compensation: 'revoke-access' },
  { action: 'send-welcome-email' },
  { action: 'capture-payment' },
];
