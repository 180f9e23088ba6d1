import { outgoing } from '../../../infra/outbox';
import type { Compensation } from '../../../infra/steps';
import { AccessRevoked, CONTENT_STEPS, ContentStepFailed } from '../contracts';
import type { RevokeAccessInput, RevokeOutcome } from './revoke-access.use-case';

/**
 * Withdrawing the access, the grant's compensation, announced as revoked with the reason the
 * checkout is being undone.
 */
export const revokeAccessStep: Compensation<RevokeAccessInput & { reason: string }, RevokeOutcome> = {
  kind: 'compensation',
  name: CONTENT_STEPS.revokeAccess,
  answer: ({ checkoutId, reason }, { entitlementId }) => outgoing(AccessRevoked, { checkoutId, entitlementId, reason }),
  isNew: (result) => result.isNew,
  failure: ContentStepFailed,
};
