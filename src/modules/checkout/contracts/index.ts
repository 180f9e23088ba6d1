import { IsIn, IsString, IsUUID, Matches } from 'class-validator';
import { defineEvent } from '../../../infra/outbox';

/** The card tokens that the fake gateway understands. */
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

/**
 * Every message of a checkout carries the coordination style that runs it in this header, so
 * that the choreography's reactions and the orchestrator never both act on the same checkout.
 */
export const COORDINATION_HEADER = 'coordination';
export const CHOREOGRAPHED = { [COORDINATION_HEADER]: 'choreography' };
export const ORCHESTRATED = { [COORDINATION_HEADER]: 'orchestration' };
