import { answer } from '../../../infra/outbox';
import type { Compensation } from '../../../infra/steps';
import { AccessRevoked, ContentStepFailed } from '../contracts';
import type { RevokeAccessInput, RevokeOutcome } from './revoke-access.handler';

/**
 * Withdrawing the access, the grant's compensation, announced as revoked with the reason the
 * checkout is being undone.
 */
export const revokeAccessStep: Compensation<RevokeAccessInput & { reason: string }, RevokeOutcome> = {
  kind: 'compensation',
  name: 'content.revoke-access',
  answer: ({ checkoutId, reason }, { entitlementId }) => answer(AccessRevoked, { checkoutId, entitlementId, reason }),
  isNew: (result) => result.isNew,
  failure: ContentStepFailed,
};
