import { Injectable } from '@nestjs/common';
import type { PaymentMethod } from '../../checkout/contracts';
import { type Answer, answer } from '../../../infra/outbox';
import { PaymentAuthorized, PaymentDeclined, type PaymentPayload } from '../contracts';
import { type PaymentRow, PaymentsRepository } from '../database/payments.repository';
import { decideAuthorize } from '../domain/payment';
import { CardGateway } from '../gateway/card-gateway';
import { Plans } from '../plans/plans';

export interface AuthorizePaymentCommand {
  checkoutId: string;
  userId: string;
  planId: string;
  paymentMethod: PaymentMethod;
  /** The same on every retry; the gateway makes no second authorization for it. */
  idempotencyKey: string;
}

export type AuthorizeOutcome =
  | { outcome: 'authorized'; payment: PaymentPayload; isNew: boolean }
  | { outcome: 'declined'; reason: string; isNew: boolean };

/** What an injected `fail` makes the step answer: a declined card. */
export const INJECTED_DECLINE: AuthorizeOutcome = { outcome: 'declined', reason: 'injected-refusal', isNew: true };

/** The event that announces an authorization's outcome, and its payload. */
export function authorizationAnswer(checkoutId: string, result: AuthorizeOutcome): Answer {
  return result.outcome === 'authorized'
    ? answer(PaymentAuthorized, result.payment)
    : answer(PaymentDeclined, { checkoutId, reason: result.reason });
}

export const toPaymentPayload = (row: PaymentRow): PaymentPayload => ({
  checkoutId: row.checkout_id,
  paymentId: row.id,
  userId: row.user_id!,
  planId: row.plan_id!,
  amountCents: row.amount_cents!,
  currency: row.currency!,
});

/** Step 2 of a checkout: hold the plan's price on the buyer's card. Compensated by a void. */
@Injectable()
export class AuthorizePayment {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly plans: Plans,
    private readonly gateway: CardGateway,
  ) {}

  async execute(command: AuthorizePaymentCommand): Promise<AuthorizeOutcome> {
    const existing = await this.payments.lockByCheckout(command.checkoutId);
    const decision = decideAuthorize(existing);
    if (decision.kind === 'refused')
      return { outcome: 'declined', reason: 'voided-before-authorization', isNew: false };
    if (decision.kind === 'already') {
      if (decision.status === 'authorized' || decision.status === 'captured') {
        return { outcome: 'authorized', payment: toPaymentPayload(existing!), isNew: false };
      }
      return { outcome: 'declined', reason: existing!.decline_reason ?? `payment is ${decision.status}`, isNew: false };
    }

    const plan = await this.plans.find(command.planId);
    if (!plan) return { outcome: 'declined', reason: 'unknown-plan', isNew: true };
    const answer = await this.gateway.authorize(command.idempotencyKey, {
      paymentMethod: command.paymentMethod,
      amountCents: plan.priceCents,
      currency: plan.currency,
      reference: command.checkoutId,
    });
    const payment = await this.payments.insert({
      checkout_id: command.checkoutId,
      user_id: command.userId,
      plan_id: plan.id,
      amount_cents: plan.priceCents,
      currency: plan.currency,
      payment_method: command.paymentMethod,
      status: answer.approved ? 'authorized' : 'declined',
      tombstone: false,
      idempotency_key: command.idempotencyKey,
      gateway_authorization_id: answer.approved ? answer.authorizationId : null,
      decline_reason: answer.approved ? null : answer.reason,
    });
    return answer.approved
      ? { outcome: 'authorized', payment: toPaymentPayload(payment), isNew: true }
      : { outcome: 'declined', reason: answer.reason, isNew: true };
  }
}
