import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { PaymentMethod } from '../../checkout/contracts';

/** Half or all of a choreographed checkout's intent to pay: what was asked, and whether the buyer may buy. */
export interface PaymentIntentRow {
  checkout_id: string;
  user_id: string | null;
  plan_id: string | null;
  payment_method: PaymentMethod | null;
  requested_at: Date | null;
  buyer_verified_at: Date | null;
}

/**
 * The two halves of each choreographed checkout's intent to pay, one row per checkout. Each
 * write is an upsert that waits for a concurrent one on the same row, and returns the row as both
 * left it: exactly one of the two writers sees both halves.
 */
@Injectable()
export class PaymentIntentsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Records what the checkout asked for. */
  async recordRequest(request: {
    checkoutId: string;
    userId: string;
    planId: string;
    paymentMethod: PaymentMethod;
  }): Promise<PaymentIntentRow> {
    const [intent] = await this.txHost.tx.query<PaymentIntentRow[]>(
      `INSERT INTO billing.payment_intents (checkout_id, user_id, plan_id, payment_method, requested_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (checkout_id) DO UPDATE
         SET user_id = EXCLUDED.user_id, plan_id = EXCLUDED.plan_id,
             payment_method = EXCLUDED.payment_method, requested_at = EXCLUDED.requested_at
       RETURNING *`,
      [request.checkoutId, request.userId, request.planId, request.paymentMethod],
    );
    return intent;
  }

  /** Records that the checkout's buyer may buy. */
  async recordBuyerVerified(checkoutId: string): Promise<PaymentIntentRow> {
    const [intent] = await this.txHost.tx.query<PaymentIntentRow[]>(
      `INSERT INTO billing.payment_intents (checkout_id, buyer_verified_at) VALUES ($1, now())
       ON CONFLICT (checkout_id) DO UPDATE SET buyer_verified_at = EXCLUDED.buyer_verified_at
       RETURNING *`,
      [checkoutId],
    );
    return intent;
  }
}
