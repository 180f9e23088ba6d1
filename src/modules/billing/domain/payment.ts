export type PaymentStatus = 'authorized' | 'declined' | 'voided' | 'captured' | 'refunded';

export interface PaymentState {
  status: PaymentStatus;
  /** Voided before it was ever authorized: a late authorization must be refused. */
  tombstone: boolean;
}

/**
 * The life of a payment, one per checkout:
 *
 *   (none) --authorize--> authorized | declined
 *   (none) --void-------> voided (tombstone)
 *   authorized --capture--> captured, or stays authorized when the capture is declined
 *   authorized --void-----> voided
 *   captured --refund-----> refunded
 *
 * Each decision says what an operation must do given the payment as it is now; repeating an
 * operation that already happened is never a second effect.
 */
export type AuthorizeDecision =
  { kind: 'authorize' } | { kind: 'already'; status: PaymentStatus } | { kind: 'refused' };

export function decideAuthorize(payment: PaymentState | undefined): AuthorizeDecision {
  if (!payment) return { kind: 'authorize' };
  if (payment.tombstone) return { kind: 'refused' };
  return { kind: 'already', status: payment.status };
}

export type CaptureDecision = { kind: 'capture' } | { kind: 'already-captured' } | { kind: 'not-capturable' };

export function decideCapture(payment: PaymentState | undefined): CaptureDecision {
  if (payment?.status === 'authorized') return { kind: 'capture' };
  if (payment?.status === 'captured' || payment?.status === 'refunded') return { kind: 'already-captured' };
  return { kind: 'not-capturable' };
}

export type VoidDecision =
  { kind: 'void' } | { kind: 'tombstone' } | { kind: 'nothing-to-void' } | { kind: 'already-captured' };

/** A void accepts "never happened" as success, and leaves a tombstone so that it stays so. */
export function decideVoid(payment: PaymentState | undefined): VoidDecision {
  if (!payment) return { kind: 'tombstone' };
  if (payment.status === 'authorized') return { kind: 'void' };
  if (payment.status === 'captured' || payment.status === 'refunded') return { kind: 'already-captured' };
  return { kind: 'nothing-to-void' };
}

export type RefundDecision = { kind: 'refund' } | { kind: 'already-refunded' } | { kind: 'not-refundable' };

export function decideRefund(payment: PaymentState | undefined): RefundDecision {
  if (payment?.status === 'captured') return { kind: 'refund' };
  if (payment?.status === 'refunded') return { kind: 'already-refunded' };
  return { kind: 'not-refundable' };
}
