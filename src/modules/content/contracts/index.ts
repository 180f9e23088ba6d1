import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { defineCommand, defineEvent } from '../../../infra/outbox';
import { CompensationCommandPayload, SagaCommandPayload, StepFailedPayload } from '../../checkout/contracts';

export class AccessGrantedPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() entitlementId!: string;
  @IsUUID() userId!: string;
  @IsString() planId!: string;
}
/** The buyer can use the plan: the last step of a checkout that can still say no. */
export const AccessGranted = defineEvent('content.access-granted.v1', AccessGrantedPayload);

export class AccessUndonePayload {
  @IsUUID() checkoutId!: string;
  @IsOptional() @IsUUID() entitlementId?: string;
  /** Why: `not-licensed` for a refusal; for a revoke, why the checkout is being undone. */
  @IsString() @MaxLength(200) reason!: string;
}
/** Access will not be granted: the checkout must be undone. */
export const AccessRefused = defineEvent('content.access-refused.v1', AccessUndonePayload);
/** Access granted earlier is withdrawn (or, never granted, can no longer be). */
export const AccessRevoked = defineEvent('content.access-revoked.v1', AccessUndonePayload);

export class GrantAccessCommandPayload extends SagaCommandPayload {
  @IsUUID() userId!: string;
  @IsString() planId!: string;
}
/** Orchestration: let the buyer use the plan. Answered with AccessGranted or AccessRefused. */
export const GrantAccessCommand = defineCommand('content.grant-access.v1', GrantAccessCommandPayload);
/** Orchestration: withdraw the access. Answered with AccessRevoked. */
export const RevokeAccessCommand = defineCommand('content.revoke-access.v1', CompensationCommandPayload);

/** Orchestration: content could not carry out a command; nothing of it was kept. */
export const ContentStepFailed = defineEvent('content.step-failed.v1', StepFailedPayload);
