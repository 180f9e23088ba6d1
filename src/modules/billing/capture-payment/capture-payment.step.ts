import { answer } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { BillingStepFailed, CaptureDeclined, PaymentCaptured } from '../contracts';
import type { CaptureOutcome, CapturePaymentInput } from './capture-payment.handler';

/** Taking the money (the pivot): refused as a declined capture, announced as captured or declined. */
export const capturePaymentStep: CommandStep<CapturePaymentInput, CaptureOutcome> = {
  name: 'billing.capture-payment',
  refuse: (reason) => ({ outcome: 'declined', reason, isNew: true }),
  answer: ({ checkoutId }, result) =>
    result.outcome === 'captured'
      ? answer(PaymentCaptured, result.payment)
      : answer(CaptureDeclined, { checkoutId, reason: result.reason }),
  isNew: (result) => result.isNew,
  failure: BillingStepFailed,
};
