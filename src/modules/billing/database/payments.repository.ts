import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import { randomUUID } from 'node:crypto';
import type { MessageContext } from '../../../infra/context/message-context';
import { lockUntilCommit, sendWithNext } from '../../../infra/database/one-write';
import type { PaymentStatus } from '../domain/payment';

export interface PaymentRow {
  id: string;
  checkout_id: string;
  user_id: string | null;
  plan_id: string | null;
  amount_cents: number | null;
  currency: string | null;
  payment_method: string | null;
  status: PaymentStatus;
  tombstone: boolean;
  idempotency_key: string;
  gateway_authorization_id: string | null;
  decline_reason: string | null;
  /** The checkout process's correlation id, from the context that created the payment. */
  correlation_id: string | null;
}

export type NewPayment = Omit<PaymentRow, 'id' | 'correlation_id'>;

/** The one payment of each checkout, always read under a lock on its checkout. */
@Injectable()
export class PaymentsRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
  ) {}

  /**
   * The checkout's payment, if any, after taking a lock on that checkout that lasts until the
   * transaction ends: operations on one checkout (an authorization and its void racing each
   * other) happen one after the other, even before the payment row exists.
   */
  async lockByCheckout(checkoutId: string): Promise<PaymentRow | undefined> {
    const tx = this.txHost.tx;
    await lockUntilCommit(tx, `billing.payments:${checkoutId}`);
    const [row] = await tx.query<PaymentRow[]>(`SELECT * FROM billing.payments WHERE checkout_id = $1`, [checkoutId]);
    return row;
  }

  /**
   * Writes a new payment. Nothing of the row is Postgres's to say back, so the statement goes with
   * the transaction's next one (its COMMIT, as a rule), and its failure fails that one.
   */
  async insert(payment: NewPayment): Promise<PaymentRow> {
    const row: PaymentRow = {
      ...payment,
      id: randomUUID(),
      correlation_id: (this.cls.isActive() ? this.cls.get('correlationId') : undefined) ?? null,
    };
    await sendWithNext(
      this.txHost.tx,
      `INSERT INTO billing.payments
         (id, checkout_id, user_id, plan_id, amount_cents, currency, payment_method, status, tombstone,
          idempotency_key, gateway_authorization_id, decline_reason, correlation_id,
          authorized_at, voided_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
               CASE WHEN $8 = 'authorized' THEN now() END, CASE WHEN $8 = 'voided' THEN now() END)`,
      [
        row.id,
        payment.checkout_id,
        payment.user_id,
        payment.plan_id,
        payment.amount_cents,
        payment.currency,
        payment.payment_method,
        payment.status,
        payment.tombstone,
        payment.idempotency_key,
        payment.gateway_authorization_id,
        payment.decline_reason,
        row.correlation_id,
      ],
    );
    return row;
  }

  /**
   * Moves a payment to a status, stamping when; a declined capture only records its reason. The
   * payment is the row as read under its lock: the statement goes with the transaction's next one,
   * and the row it returns is that one as the statement leaves it.
   */
  async update(payment: PaymentRow, change: { status?: PaymentStatus; declineReason?: string }): Promise<PaymentRow> {
    await sendWithNext(
      this.txHost.tx,
      `UPDATE billing.payments
          SET status = coalesce($2, status),
              decline_reason = coalesce($3, decline_reason),
              captured_at = CASE WHEN $2 = 'captured' THEN now() ELSE captured_at END,
              voided_at = CASE WHEN $2 = 'voided' THEN now() ELSE voided_at END,
              refunded_at = CASE WHEN $2 = 'refunded' THEN now() ELSE refunded_at END,
              updated_at = now()
        WHERE id = $1`,
      [payment.id, change.status ?? null, change.declineReason ?? null],
    );
    return {
      ...payment,
      status: change.status ?? payment.status,
      decline_reason: change.declineReason ?? payment.decline_reason,
    };
  }
}
