import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../../infra/context/message-context';
import { OutboxPublisher } from '../../../infra/outbox';
import { PaymentRefunded } from '../contracts';
import { PaymentsRepository } from '../database/payments.repository';
import { decideRefund } from '../domain/payment';
import { CardGateway } from '../gateway/card-gateway';

export type RefundOutcome = { outcome: 'refunded'; isNew: boolean } | { outcome: 'not-refundable'; reason: string };

/**
 * Gives captured money back. Not a compensation of the checkout (after the pivot it only goes
 * forward): an operator's decision, as when a person resolves a checkout in intervention. It is
 * announced in the checkout's own process (its correlation id), so that the checkout records it
 * and its timeline shows it.
 */
@Injectable()
export class RefundPayment {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly gateway: CardGateway,
    private readonly outbox: OutboxPublisher,
    private readonly cls: ClsService<MessageContext>,
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
    const response = await this.gateway.refund(idempotencyKey, payment!.gateway_authorization_id!);
    if (!response.approved) return { outcome: 'not-refundable', reason: response.reason };
    const refunded = await this.payments.update(payment!, { status: 'refunded' });
    await this.cls.run({ ifNested: 'inherit' }, async () => {
      if (refunded.correlation_id) this.cls.set('correlationId', refunded.correlation_id);
      await this.outbox.publish(
        PaymentRefunded,
        {
          checkoutId,
          paymentId: refunded.id,
          amountCents: refunded.amount_cents!,
          currency: refunded.currency!,
        },
        { aggregateId: checkoutId },
      );
    });
    return { outcome: 'refunded', isNew: true };
  }
}
