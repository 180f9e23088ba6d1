import { stepKey } from '../checkout/contracts';
import { BILLING_STEPS } from './contracts';

/**
 * The key of a checkout's authorization, as the saga makes it (`stepKey`): every attempt of the
 * authorization uses it, and so does its void, which finds the authorization by it.
 */
export const authorizeKey = (checkoutId: string) => stepKey(checkoutId, BILLING_STEPS.authorizePayment);

/**
 * The key of a void by id of an authorization found under the checkout (a gateway without void by
 * key): derived from the compensation's own key and the authorization, so that every attempt of
 * the compensation voids it under the same key, and a void still in flight is not doubled.
 */
export const voidOfFiledKey = (compensationKey: string, authorizationId: string) =>
  `${compensationKey}:void:${authorizationId}`;

/**
 * The key under which a refund reverses the checkout's invoice: the cancel and the return note
 * each derive theirs from it, so every attempt of the reversal asks the authority the same.
 */
export const reverseInvoiceKey = (checkoutId: string) => stepKey(checkoutId, 'billing.reverse-invoice');
