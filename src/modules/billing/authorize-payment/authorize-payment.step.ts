import { answer } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { BillingStepFailed, PaymentAuthorized, PaymentDeclined } from '../contracts';
import type { AuthorizeOutcome, AuthorizePaymentInput } from './authorize-payment.handler';

/** Holding the price on the card: refused as a declined card, announced as authorized or declined. */
export const authorizePaymentStep: CommandStep<AuthorizePaymentInput, AuthorizeOutcome> = {
  name: 'billing.authorize-payment',
  refuse: (reason) => ({ outcome: 'declined', reason, isNew: true }),
  answer: ({ checkoutId }, result) =>
    result.outcome === 'authorized'
      ? answer(PaymentAuthorized, result.payment)
      : answer(PaymentDeclined, { checkoutId, reason: result.reason }),
  isNew: (result) => result.isNew,
  failure: BillingStepFailed,
};
