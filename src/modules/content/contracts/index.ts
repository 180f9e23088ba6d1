import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { defineCommand, defineEvent } from '../../../infra/outbox';
import { CompensationCommandPayload, SagaCommandPayload, StepFailedPayload } from '../../checkout/contracts';

/** Content's actions on a checkout, by name: the checkout's table and the step declarations both use these. */
export const CONTENT_STEPS = {
  grantAccess: 'content.grant-access',
  activateAccess: 'content.activate-access',
  revokeAccess: 'content.revoke-access',
} as const;

export class AccessGrantedPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() entitlementId!: string;
  @IsUUID() userId!: string;
  @IsString() planId!: string;
}
/**
 * Access is granted provisionally: reserved for the buyer, not yet usable, since the checkout can
 * still be undone (ADR 0051). The last step of a checkout that can still say no.
 */
export const AccessGranted = defineEvent('content.access-granted.v1', AccessGrantedPayload);
/** The money was taken, so the provisional access is active: the buyer can use the plan. */
export const AccessActivated = defineEvent('content.access-activated.v1', AccessGrantedPayload);

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
/** Orchestration: the money was taken, make the access active. Answered with AccessActivated. */
export const ActivateAccessCommand = defineCommand('content.activate-access.v1', SagaCommandPayload);
/** Orchestration: withdraw the access. Answered with AccessRevoked. */
export const RevokeAccessCommand = defineCommand('content.revoke-access.v1', CompensationCommandPayload);

/** Orchestration: content could not carry out a command; nothing of it was kept. */
export const ContentStepFailed = defineEvent('content.step-failed.v1', StepFailedPayload);
