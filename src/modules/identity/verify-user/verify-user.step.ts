import { outgoing } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import type { BuyerVerdict } from '../domain/buyer';
import { BuyerRejected, BuyerVerified, IDENTITY_STEPS, IdentityStepFailed } from '../contracts';

export interface VerifyUserInput {
  checkoutId: string;
  userId: string;
}

/**
 * The buyer's verdict: refused as if the buyer could not buy, announced as verified or rejected.
 * Verifying changes nothing, so every verdict is announced, a repeated one included.
 */
export const verifyUserStep: CommandStep<VerifyUserInput, BuyerVerdict> = {
  name: IDENTITY_STEPS.verifyUser,
  refuse: (reason) => ({ verified: false, reason }),
  answer: ({ checkoutId, userId }, verdict) =>
    verdict.verified
      ? outgoing(BuyerVerified, { checkoutId, userId, country: verdict.country })
      : outgoing(BuyerRejected, { checkoutId, userId, reason: verdict.reason }),
  failure: IdentityStepFailed,
};
