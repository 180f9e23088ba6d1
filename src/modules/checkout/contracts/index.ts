import { IsIn, IsInt, IsString, IsUUID, Matches, MaxLength, Min } from 'class-validator';
import { defineEvent } from '../../../infra/outbox';

/** The test card tokens that the card gateway service understands. */
export const PAYMENT_METHODS = ['pm_card_ok', 'pm_card_declined', 'pm_card_capture_declined'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export class CheckoutRequestedPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() userId!: string;
  @IsString() @Matches(/^[a-z0-9-]{1,64}$/) planId!: string;
  @IsIn(PAYMENT_METHODS) paymentMethod!: PaymentMethod;
}
/** A buyer asked to buy a plan: the first fact of a choreographed checkout. */
export const CheckoutRequested = defineEvent('checkout.checkout-requested.v1', CheckoutRequestedPayload);

export class CheckoutResumedPayload {
  @IsUUID() checkoutId!: string;
  /** The step that stalled, whose participant is asked again. */
  @IsString() @Matches(/^[a-z]+\.[a-z-]+$/) step!: string;
  /** The message type sent to that participant. */
  @IsString() @MaxLength(200) resent!: string;
  /** Why it had stopped, as the checkout said when a person was asked to act. */
  @IsString() @MaxLength(2_000) stalledBecause!: string;
}
/** An operator resumed a stalled choreographed checkout: its participant is asked again. */
export const CheckoutResumed = defineEvent('checkout.checkout-resumed.v1', CheckoutResumedPayload);

/**
 * Every message of a checkout carries the coordination style that runs it in this header, so
 * that the choreography's reactions and the orchestrator never both act on the same checkout.
 */
export const COORDINATION_HEADER = 'coordination';
export const CHOREOGRAPHED = { [COORDINATION_HEADER]: 'choreography' };
export const ORCHESTRATED = { [COORDINATION_HEADER]: 'orchestration' };

/**
 * The idempotency key of one of a checkout's actions, `<checkout id>:<action>`: the same on every
 * send of a step, in both coordination styles, and on the step's compensation, which finds what it
 * undoes by it. An operator's action on a checkout (a refund) is keyed the same way.
 */
export const stepKey = (checkoutId: string, action: string): string => `${checkoutId}:${action}`;

/** What every command of the checkout saga carries: its checkout, and the key of its step. */
export class SagaCommandPayload {
  @IsUUID() checkoutId!: string;
  /** `<checkout id>:<step>`: the same on every retry of the step and on its compensation. */
  @IsString() @Matches(/^[0-9a-f-]{36}:[a-z]+\.[a-z-]+$/) idempotencyKey!: string;
  /** Which send of the step this is, 1 for the first: an answer names it back. */
  @IsInt() @Min(1) attempt!: number;
}

/** Why a compensation runs: the checkout's failure, carried into the compensation's event. */
export class CompensationCommandPayload extends SagaCommandPayload {
  @IsString() @MaxLength(200) reason!: string;
}

/** A participant tried a step (or a compensation) and failed: nothing of it was kept. */
export class StepFailedPayload {
  @IsUUID() checkoutId!: string;
  /** The action or compensation that failed, as named in the saga. */
  @IsString() @Matches(/^[a-z]+\.[a-z-]+$/) step!: string;
  @IsString() @MaxLength(2_000) error!: string;
  /** The send of the command that failed. */
  @IsInt() @Min(1) attempt!: number;
}
