import { IsIn, IsInt, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { defineCommand, defineEvent } from '../../../infra/outbox';
import {
  CompensationCommandPayload,
  PAYMENT_METHODS,
  type PaymentMethod,
  SagaCommandPayload,
  StepFailedPayload,
} from '../../checkout/contracts';

/** Billing's actions on a checkout, by name: the checkout's table and the step declarations both use these. */
export const BILLING_STEPS = {
  authorizePayment: 'billing.authorize-payment',
  capturePayment: 'billing.capture-payment',
  voidAuthorization: 'billing.void-authorization',
  refundPayment: 'billing.refund-payment',
  issueInvoice: 'billing.issue-invoice',
} as const;

export class PaymentPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() paymentId!: string;
  @IsUUID() userId!: string;
  @IsString() planId!: string;
  @IsInt() amountCents!: number;
  @Length(3, 3) currency!: string;
}

export class PaymentRefusalPayload {
  @IsUUID() checkoutId!: string;
  @IsString() @MaxLength(200) reason!: string;
}

/** Funds are held for the checkout; until captured, a void releases them. */
export const PaymentAuthorized = defineEvent('billing.payment-authorized.v1', PaymentPayload);
/** The card was refused: nothing was held. */
export const PaymentDeclined = defineEvent('billing.payment-declined.v1', PaymentRefusalPayload);
/** The money is taken: the point of no return of a checkout. */
export const PaymentCaptured = defineEvent('billing.payment-captured.v1', PaymentPayload);
/** The capture was refused: the authorization still holds funds until voided. */
export const CaptureDeclined = defineEvent('billing.capture-declined.v1', PaymentRefusalPayload);

export class PaymentVoidedPayload {
  @IsUUID() checkoutId!: string;
  /** Absent when nothing had been authorized: the void left a tombstone instead. */
  @IsOptional() @IsUUID() paymentId?: string;
  /** Why the checkout is being undone. */
  @IsString() @MaxLength(200) reason!: string;
}
/** The authorization is released (or, if none was made, can no longer be). */
export const PaymentVoided = defineEvent('billing.payment-voided.v1', PaymentVoidedPayload);

export class PaymentRefundedPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() paymentId!: string;
  @IsInt() amountCents!: number;
  @Length(3, 3) currency!: string;
}
/** The captured money went back to the buyer: an operator's decision, after the checkout ended. */
export const PaymentRefunded = defineEvent('billing.payment-refunded.v1', PaymentRefundedPayload);

export class InvoiceIssuedPayload {
  @IsUUID() checkoutId!: string;
  @IsString() @MaxLength(100) invoiceId!: string;
  /** The invoice's number, as the authority gave it. */
  @IsString() @MaxLength(100) number!: string;
  @IsUUID() userId!: string;
  @IsString() planId!: string;
}
/** The fiscal authority authorised the checkout's invoice: the sale is on the books. */
export const InvoiceIssued = defineEvent('billing.invoice-issued.v1', InvoiceIssuedPayload);

export class InvoiceReversalPayload {
  @IsUUID() checkoutId!: string;
  @IsString() @MaxLength(100) invoiceId!: string;
  /** The invoice's number, as the authority gave it. */
  @IsString() @MaxLength(100) number!: string;
  /** The return note that reverses it, when it was not cancelled. */
  @IsOptional() @IsString() @MaxLength(100) returnNoteNumber?: string;
}
/** A refund inside the authority's window: the checkout's invoice is cancelled. */
export const InvoiceCancelled = defineEvent('billing.invoice-cancelled.v1', InvoiceReversalPayload);
/** A refund after the window: a return note reverses the checkout's invoice. */
export const InvoiceReversed = defineEvent('billing.invoice-reversed.v1', InvoiceReversalPayload);

export class AuthorizePaymentCommandPayload extends SagaCommandPayload {
  @IsUUID() userId!: string;
  @IsString() planId!: string;
  @IsIn(PAYMENT_METHODS) paymentMethod!: PaymentMethod;
}
/** Orchestration: hold the plan's price. Answered with PaymentAuthorized or PaymentDeclined. */
export const AuthorizePaymentCommand = defineCommand('billing.authorize-payment.v1', AuthorizePaymentCommandPayload);
/** Orchestration: take the money (the pivot). Answered with PaymentCaptured or CaptureDeclined. */
export const CapturePaymentCommand = defineCommand('billing.capture-payment.v1', SagaCommandPayload);
/** Orchestration: release the held funds. Answered with PaymentVoided. */
export const VoidAuthorizationCommand = defineCommand('billing.void-authorization.v1', CompensationCommandPayload);

/** Orchestration: invoice the money taken, after the capture. Answered with InvoiceIssued; never refused. */
export const IssueInvoiceCommand = defineCommand('billing.issue-invoice.v1', SagaCommandPayload);

/** Orchestration: billing could not carry out a command; nothing of it was kept. */
export const BillingStepFailed = defineEvent('billing.step-failed.v1', StepFailedPayload);
