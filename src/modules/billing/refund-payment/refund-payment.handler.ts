import { Injectable } from '@nestjs/common';
import { PaymentsRepository } from '../database/payments.repository';
import { decideRefund } from '../domain/payment';
import { CardGateway } from '../gateway/card-gateway';

export type RefundOutcome = { outcome: 'refunded'; isNew: boolean } | { outcome: 'not-refundable'; reason: string };

/**
 * Gives captured money back. Not a compensation of the checkout (after the pivot it only goes
 * forward): an operator's decision, as when a person resolves a checkout in intervention.
 */
@Injectable()
export class RefundPayment {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly gateway: CardGateway,
  ) {}

  async execute({
    checkoutId,
    idempotencyKey,
  }: {
    checkoutId: string;
    idempotencyKey: string;
  }): Promise<RefundOutcome> {
    const payment = await this.payments.lockByCheckout(checkoutId);
    const decision = decideRefund(payment);
    if (decision.kind === 'already-refunded') return { outcome: 'refunded', isNew: false };
    if (decision.kind === 'not-refundable') {
      return { outcome: 'not-refundable', reason: payment ? `payment is ${payment.status}` : 'no payment' };
    }
    const answer = await this.gateway.refund(idempotencyKey, payment!.gateway_authorization_id!);
    if (!answer.approved) return { outcome: 'not-refundable', reason: answer.reason };
    await this.payments.update(payment!.id, { status: 'refunded' });
    return { outcome: 'refunded', isNew: true };
  }
}
