import { answer, type Answer } from '../../../infra/outbox';
import { AuthorizePaymentCommand, CapturePaymentCommand, VoidAuthorizationCommand } from '../../billing/contracts';
import { ActivateAccessCommand, GrantAccessCommand, RevokeAccessCommand } from '../../content/contracts';
import { VerifyUserCommand } from '../../identity/contracts';
import { SendWelcomeEmailCommand } from '../../notifications/contracts';
import type { PaymentMethod } from '../contracts';
import type { CheckoutRow } from '../database/checkouts.repository';
import type { CheckoutStep } from '../domain/checkout';
import { CHECKOUT_SAGA } from '../domain/checkout.saga';

/** The action a step is, or undoes: a compensation shares its action's idempotency key. */
const actionOf = (step: CheckoutStep): string => CHECKOUT_SAGA.find((d) => d.compensation === step)?.step ?? step;

/** `<checkout id>:<action>`: the same on every send of a step, on its compensation, in both modes. */
export const stepKey = (checkoutId: string, step: CheckoutStep): string => `${checkoutId}:${actionOf(step)}`;

/**
 * The command that asks a participant to carry out one step of a checkout (or its compensation),
 * under the step's idempotency key. The saga sends these; an operator resuming a stalled
 * choreography sends one too. Each participant answers it with the same events the choreography uses.
 */
export function stepCommand(checkout: CheckoutRow, step: CheckoutStep, attempt: number, reason: string): Answer {
  const base = { checkoutId: checkout.id, idempotencyKey: stepKey(checkout.id, step), attempt };
  const buyer = { userId: checkout.user_id, planId: checkout.plan_id };
  switch (step) {
    case 'identity.verify-user':
      return answer(VerifyUserCommand, { ...base, userId: checkout.user_id });
    case 'billing.authorize-payment':
      return answer(AuthorizePaymentCommand, {
        ...base,
        ...buyer,
        paymentMethod: checkout.payment_method as PaymentMethod,
      });
    case 'content.grant-access':
      return answer(GrantAccessCommand, { ...base, ...buyer });
    case 'billing.capture-payment':
      return answer(CapturePaymentCommand, base);
    case 'content.activate-access':
      return answer(ActivateAccessCommand, base);
    case 'notifications.send-welcome-email':
      return answer(SendWelcomeEmailCommand, { ...base, ...buyer });
    case 'billing.void-authorization':
      return answer(VoidAuthorizationCommand, { ...base, reason });
    case 'content.revoke-access':
      return answer(RevokeAccessCommand, { ...base, reason });
  }
}
