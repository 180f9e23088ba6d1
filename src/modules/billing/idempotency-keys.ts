import { stepKey } from '../checkout/contracts';
import { BILLING_STEPS } from './contracts';

/**
 * The key of a checkout's authorization, as the saga makes it (`stepKey`): every attempt of the
 * authorization uses it, and so does its void, which finds the authorization by it.
 */
export const authorizeKey = (checkoutId: string) => stepKey(checkoutId, BILLING_STEPS.authorizePayment);
