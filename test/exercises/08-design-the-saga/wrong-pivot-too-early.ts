import type { SagaDesign } from './exercise';

/**
 * A learner's words: "The capture is the point of no return, so it gets no compensation, and a
 * refund that shows on the statement is gone. The rest I keep as it was: hold, take, deliver."
 *
 * What it gets wrong: the pivot has to come once nothing else can say no, and access still can
 * (a plan not licensed in the buyer's country). Refused after the capture, the checkout cannot go
 * back: the buyer is charged for a plan they cannot have.
 */
export const checkoutSaga: SagaDesign = [
  { action: 'authorize-payment', compensation: 'void-authorization' },
  { action: 'capture-payment' },
  { action: 'grant-access', compensation: 'revoke-access' },
  { action: 'send-welcome-email' },
];
