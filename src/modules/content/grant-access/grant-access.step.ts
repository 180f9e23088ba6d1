import { answer } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { AccessGranted, AccessRefused, ContentStepFailed } from '../contracts';
import type { GrantAccessInput, GrantOutcome } from './grant-access.handler';

/** Reserving the plan for the buyer: refused as a plan it cannot have, announced as granted or refused. */
export const grantAccessStep: CommandStep<GrantAccessInput, GrantOutcome> = {
  name: 'content.grant-access',
  refuse: (reason) => ({ outcome: 'refused', reason, isNew: true }),
  answer: ({ checkoutId, userId, planId }, result) =>
    result.outcome === 'granted'
      ? answer(AccessGranted, { checkoutId, entitlementId: result.entitlementId, userId, planId })
      : answer(AccessRefused, { checkoutId, reason: result.reason }),
  isNew: (result) => result.isNew,
  failure: ContentStepFailed,
};
