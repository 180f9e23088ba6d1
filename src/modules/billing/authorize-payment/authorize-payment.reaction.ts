import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CHOREOGRAPHED, CheckoutRequested, type CheckoutRequestedPayload } from '../../checkout/contracts';
import { BuyerVerified, type BuyerVerifiedPayload } from '../../identity/contracts';
import { PaymentIntentsRepository, type PaymentIntentRow } from '../database/payment-intents.repository';
import { authorizeKey } from '../idempotency-keys';
import { AuthorizePayment, type AuthorizePaymentInput } from './authorize-payment.use-case';
import { authorizePaymentStep } from './authorize-payment.step';

/**
 * Choreography: billing authorizes once it knows both what was asked (the checkout's request)
 * and that the buyer may buy (identity's verdict). The two events travel separately and may
 * arrive in either order, so each is recorded as half of an intent; whichever completes the
 * pair authorizes. The upsert waits for a concurrent one on the same row, so exactly one of them
 * sees both halves.
 */
@Injectable()
export class AuthorizePaymentReaction {
  constructor(
    private readonly intents: PaymentIntentsRepository,
    private readonly authorizePayment: AuthorizePayment,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(CheckoutRequested.type)
  @Consumer('billing.record-payment-intent', { where: CHOREOGRAPHED })
  async onCheckoutRequested({ checkoutId, userId, planId, paymentMethod }: CheckoutRequestedPayload): Promise<void> {
    const intent = await this.intents.recordRequest({ checkoutId, userId, planId, paymentMethod });
    await this.authorizeWhenComplete(intent);
  }

  @OnEvent(BuyerVerified.type)
  @Consumer('billing.authorize-payment', { where: CHOREOGRAPHED })
  async onBuyerVerified({ checkoutId }: BuyerVerifiedPayload): Promise<void> {
    const intent = await this.intents.recordBuyerVerified(checkoutId);
    await this.authorizeWhenComplete(intent);
  }

  private async authorizeWhenComplete(intent: PaymentIntentRow): Promise<void> {
    if (!intent.requested_at || !intent.buyer_verified_at) return;
    const input: AuthorizePaymentInput = {
      checkoutId: intent.checkout_id,
      userId: intent.user_id!,
      planId: intent.plan_id!,
      paymentMethod: intent.payment_method!,
      idempotencyKey: authorizeKey(intent.checkout_id),
    };
    await this.steps.react(authorizePaymentStep, input, () => this.authorizePayment.execute(input));
  }
}
