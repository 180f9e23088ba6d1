import { outgoing } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { BILLING_STEPS, BillingStepFailed, CaptureDeclined, PaymentCaptured } from '../contracts';
import type { CaptureOutcome, CapturePaymentInput } from './capture-payment.use-case';

/** Taking the money (the pivot): refused as a declined capture, announced as captured or declined. */
export const capturePaymentStep: CommandStep<CapturePaymentInput, CaptureOutcome> = {
  name: BILLING_STEPS.capturePayment,
  refuse: (reason) => ({ outcome: 'declined', reason, isNew: true }),
  answer: ({ checkoutId }, result) =>
    result.outcome === 'captured'
      ? outgoing(PaymentCaptured, result.payment)
      : outgoing(CaptureDeclined, { checkoutId, reason: result.reason }),
  isNew: (result) => result.isNew,
  failure: BillingStepFailed,
};
