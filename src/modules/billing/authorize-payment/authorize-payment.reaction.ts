import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import {
  CHOREOGRAPHED,
  CheckoutRequested,
  type CheckoutRequestedPayload,
  type PaymentMethod,
} from '../../checkout/contracts';
import { BuyerVerified, type BuyerVerifiedPayload } from '../../identity/contracts';
import { authorizeKey } from '../idempotency-keys';
import { AuthorizePayment, type AuthorizePaymentInput } from './authorize-payment.use-case';
import { authorizePaymentStep } from './authorize-payment.step';

interface IntentRow {
  checkout_id: string;
  user_id: string | null;
  plan_id: string | null;
  payment_method: PaymentMethod | null;
  requested_at: Date | null;
  buyer_verified_at: Date | null;
}

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
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly authorizePayment: AuthorizePayment,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(CheckoutRequested.type)
  @Consumer('billing.record-payment-intent', { where: CHOREOGRAPHED })
  async onCheckoutRequested({ checkoutId, userId, planId, paymentMethod }: CheckoutRequestedPayload): Promise<void> {
    const [intent] = await this.txHost.tx.query<IntentRow[]>(
      `INSERT INTO billing.payment_intents (checkout_id, user_id, plan_id, payment_method, requested_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (checkout_id) DO UPDATE
         SET user_id = EXCLUDED.user_id, plan_id = EXCLUDED.plan_id,
             payment_method = EXCLUDED.payment_method, requested_at = EXCLUDED.requested_at
       RETURNING *`,
      [checkoutId, userId, planId, paymentMethod],
    );
    await this.authorizeWhenComplete(intent);
  }

  @OnEvent(BuyerVerified.type)
  @Consumer('billing.authorize-payment', { where: CHOREOGRAPHED })
  async onBuyerVerified({ checkoutId }: BuyerVerifiedPayload): Promise<void> {
    const [intent] = await this.txHost.tx.query<IntentRow[]>(
      `INSERT INTO billing.payment_intents (checkout_id, buyer_verified_at) VALUES ($1, now())
       ON CONFLICT (checkout_id) DO UPDATE SET buyer_verified_at = EXCLUDED.buyer_verified_at
       RETURNING *`,
      [checkoutId],
    );
    await this.authorizeWhenComplete(intent);
  }

  private async authorizeWhenComplete(intent: IntentRow): Promise<void> {
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
