import { stepKey } from '../checkout/contracts';
import { CONTENT_STEPS } from './contracts';

/**
 * The key of a checkout's grant, as the saga makes it (`stepKey`): every attempt of the grant uses
 * it, and so does its revoke, whose tombstone it marks.
 */
export const grantKey = (checkoutId: string) => stepKey(checkoutId, CONTENT_STEPS.grantAccess);
