import { outgoing } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { BILLING_STEPS, BillingStepFailed, PaymentAuthorized, PaymentDeclined } from '../contracts';
import type { AuthorizeOutcome, AuthorizePaymentInput } from './authorize-payment.use-case';

/** Holding the price on the card: refused as a declined card, announced as authorized or declined. */
export const authorizePaymentStep: CommandStep<AuthorizePaymentInput, AuthorizeOutcome> = {
  name: BILLING_STEPS.authorizePayment,
  refuse: (reason) => ({ outcome: 'declined', reason, isNew: true }),
  answer: ({ checkoutId }, result) =>
    result.outcome === 'authorized'
      ? outgoing(PaymentAuthorized, result.payment)
      : outgoing(PaymentDeclined, { checkoutId, reason: result.reason }),
  isNew: (result) => result.isNew,
  failure: BillingStepFailed,
};
