import { answer } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import type { BuyerVerdict } from '../domain/buyer';
import { BuyerRejected, BuyerVerified, IdentityStepFailed } from '../contracts';

export interface VerifyUserInput {
  checkoutId: string;
  userId: string;
}

/**
 * The buyer's verdict: refused as if the buyer could not buy, announced as verified or rejected.
 * Verifying changes nothing, so every verdict is announced, a repeated one included.
 */
export const verifyUserStep: CommandStep<VerifyUserInput, BuyerVerdict> = {
  name: 'identity.verify-user',
  refuse: (reason) => ({ verified: false, reason }),
  answer: ({ checkoutId, userId }, verdict) =>
    verdict.verified
      ? answer(BuyerVerified, { checkoutId, userId, country: verdict.country })
      : answer(BuyerRejected, { checkoutId, userId, reason: verdict.reason }),
  failure: IdentityStepFailed,
};
