import { IsISO31661Alpha2, IsString, IsUUID, MaxLength } from 'class-validator';
import { defineCommand, defineEvent } from '../../../infra/outbox';
import { SagaCommandPayload, StepFailedPayload } from '../../checkout/contracts';

/** Identity's action on a checkout, by name: the checkout's table and the step declaration both use it. */
export const IDENTITY_STEPS = {
  verifyUser: 'identity.verify-user',
} as const;

export class BuyerVerifiedPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() userId!: string;
  @IsISO31661Alpha2() country!: string;
}
/** The buyer of a checkout exists and may buy. */
export const BuyerVerified = defineEvent('identity.buyer-verified.v1', BuyerVerifiedPayload);

export class BuyerRejectedPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() userId!: string;
  /** `unknown-user` or `user-blocked` (or the reason the step was told to refuse with). */
  @IsString() @MaxLength(200) reason!: string;
}
/** The buyer of a checkout may not buy: nothing else may happen to that checkout. */
export const BuyerRejected = defineEvent('identity.buyer-rejected.v1', BuyerRejectedPayload);

export class VerifyUserCommandPayload extends SagaCommandPayload {
  @IsUUID() userId!: string;
}
/** Orchestration: may this user buy? Answered with BuyerVerified or BuyerRejected. */
export const VerifyUserCommand = defineCommand('identity.verify-user.v1', VerifyUserCommandPayload);

/** Orchestration: identity could not carry out a command; nothing of it was kept. */
export const IdentityStepFailed = defineEvent('identity.step-failed.v1', StepFailedPayload);
