import { answer } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { AccessActivated, ContentStepFailed } from '../contracts';
import type { ActivateAccessInput, ActivateOutcome } from './activate-access.handler';

/** Making the provisional access active, after the money was taken. It cannot say no. */
export const activateAccessStep: CommandStep<ActivateAccessInput, ActivateOutcome> = {
  name: 'content.activate-access',
  answer: ({ checkoutId }, { entitlementId, userId, planId }) =>
    answer(AccessActivated, { checkoutId, entitlementId, userId, planId }),
  isNew: (result) => result.isNew,
  failure: ContentStepFailed,
};
