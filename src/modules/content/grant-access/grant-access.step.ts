import { outgoing } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { AccessGranted, AccessRefused, CONTENT_STEPS, ContentStepFailed } from '../contracts';
import type { GrantAccessInput, GrantOutcome } from './grant-access.use-case';

/** Reserving the plan for the buyer: refused as a plan it cannot have, announced as granted or refused. */
export const grantAccessStep: CommandStep<GrantAccessInput, GrantOutcome> = {
  name: CONTENT_STEPS.grantAccess,
  refuse: (reason) => ({ outcome: 'refused', reason, isNew: true }),
  answer: ({ checkoutId, userId, planId }, result) =>
    result.outcome === 'granted'
      ? outgoing(AccessGranted, { checkoutId, entitlementId: result.entitlementId, userId, planId })
      : outgoing(AccessRefused, { checkoutId, reason: result.reason }),
  isNew: (result) => result.isNew,
  failure: ContentStepFailed,
};
