import { outgoing } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { AccessActivated, CONTENT_STEPS, ContentStepFailed } from '../contracts';
import type { ActivateAccessInput, ActivateOutcome } from './activate-access.use-case';

/** Making the provisional access active, after the money was taken. It cannot say no. */
export const activateAccessStep: CommandStep<ActivateAccessInput, ActivateOutcome> = {
  name: CONTENT_STEPS.activateAccess,
  answer: ({ checkoutId }, { entitlementId, userId, planId }) =>
    outgoing(AccessActivated, { checkoutId, entitlementId, userId, planId }),
  isNew: (result) => result.isNew,
  failure: ContentStepFailed,
};
