import { Injectable } from '@nestjs/common';
import { together } from '../../../infra/database/one-write';
import type { PaymentMethod } from '../../checkout/contracts';
import type { PaymentPayload } from '../contracts';
import { PaymentsRepository } from '../database/payments.repository';
import { decideAuthorize } from '../domain/payment';
import { CardGateway } from '../gateway/card-gateway';
import { toPaymentPayload } from '../payment.mapper';
import { PlansRepository } from '../database/plans.repository';

export interface AuthorizePaymentInput {
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

/** Step 2 of a checkout: hold the plan's price on the buyer's card. Compensated by a void. */
@Injectable()
export class AuthorizePayment {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly plans: PlansRepository,
    private readonly gateway: CardGateway,
  ) {}

  async execute(command: AuthorizePaymentInput): Promise<AuthorizeOutcome> {
    // Asked for together (one round trip): the plan is not needed when a payment exists, but costs nothing then.
    const [existing, plan] = await together([
      this.payments.lockByCheckout(command.checkoutId),
      this.plans.find(command.planId),
    ]);
    const decision = decideAuthorize(existing);
    if (decision.kind === 'refused')
      return { outcome: 'declined', reason: 'voided-before-authorization', isNew: false };
    if (decision.kind === 'already') {
      if (decision.status === 'authorized' || decision.status === 'captured') {
        return { outcome: 'authorized', payment: toPaymentPayload(existing!), isNew: false };
      }
      return { outcome: 'declined', reason: existing!.decline_reason ?? `payment is ${decision.status}`, isNew: false };
    }

    if (!plan) return { outcome: 'declined', reason: 'unknown-plan', isNew: true };
    const response = await this.gateway.authorize(command.idempotencyKey, {
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
      status: response.approved ? 'authorized' : 'declined',
      tombstone: false,
      idempotency_key: command.idempotencyKey,
      gateway_authorization_id: response.approved ? response.authorizationId : null,
      decline_reason: response.approved ? null : response.reason,
    });
    return response.approved
      ? { outcome: 'authorized', payment: toPaymentPayload(payment), isNew: true }
      : { outcome: 'declined', reason: response.reason, isNew: true };
  }
}
