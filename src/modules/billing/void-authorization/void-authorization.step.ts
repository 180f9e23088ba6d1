import { outgoing } from '../../../infra/outbox';
import type { Compensation } from '../../../infra/steps';
import { BILLING_STEPS, BillingStepFailed, PaymentVoided } from '../contracts';
import type { VoidAuthorizationInput, VoidOutcome } from './void-authorization.use-case';

/**
 * Releasing the held funds, the authorization's compensation, announced as voided with the reason
 * the checkout is being undone.
 */
export const voidAuthorizationStep: Compensation<VoidAuthorizationInput & { reason: string }, VoidOutcome> = {
  kind: 'compensation',
  name: BILLING_STEPS.voidAuthorization,
  answer: ({ checkoutId, reason }, result) => {
    // A captured payment is not voided but refunded: the compensation fails, to be retried and
    // in the end resolved by a person.
    if (result.outcome === 'not-voidable') {
      throw new Error(`Cannot void the payment of ${checkoutId}: ${result.reason}`);
    }
    return outgoing(PaymentVoided, { checkoutId, paymentId: result.paymentId, reason });
  },
  isNew: (result) => result.outcome === 'voided' && result.isNew,
  failure: BillingStepFailed,
};
