import type { PaymentPayload } from './contracts';
import type { PaymentRow } from './database/payments.repository';

/** A payment as billing's events tell it: what the authorization and the capture both announce. */
export const toPaymentPayload = (row: PaymentRow): PaymentPayload => ({
  checkoutId: row.checkout_id,
  paymentId: row.id,
  userId: row.user_id!,
  planId: row.plan_id!,
  amountCents: row.amount_cents!,
  currency: row.currency!,
});
