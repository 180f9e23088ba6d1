import { IsIn, IsISO31661Alpha2, IsUUID } from 'class-validator';
import { defineEvent } from '../../../infra/outbox';

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
  @IsIn(['unknown-user', 'user-blocked']) reason!: 'unknown-user' | 'user-blocked';
}
/** The buyer of a checkout may not buy: nothing else may happen to that checkout. */
export const BuyerRejected = defineEvent('identity.buyer-rejected.v1', BuyerRejectedPayload);
