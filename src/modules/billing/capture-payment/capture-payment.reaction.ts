import { Injectable } from '@nestjs/common';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessGranted, type AccessGrantedPayload } from '../../content/contracts';
import { CaptureDeclined, PaymentCaptured } from '../contracts';
import { CapturePayment } from './capture-payment.handler';

/** Choreography: access granted, so nothing can say no any more: take the money. */
@Injectable()
export class CapturePaymentReaction {
  constructor(
    private readonly capturePayment: CapturePayment,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(AccessGranted, { consumer: 'billing.capture-payment', where: CHOREOGRAPHED })
  async onAccessGranted({ checkoutId }: AccessGrantedPayload): Promise<void> {
    const result = await this.capturePayment.execute({
      checkoutId,
      idempotencyKey: `${checkoutId}:billing.capture-payment`,
    });
    if (!result.isNew) return;
    if (result.outcome === 'captured') {
      await this.outbox.publish(PaymentCaptured, result.payment, { aggregateId: checkoutId });
    } else {
      await this.outbox.publish(CaptureDeclined, { checkoutId, reason: result.reason }, { aggregateId: checkoutId });
    }
  }
}
