import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessGranted, type AccessGrantedPayload } from '../../content/contracts';
import { CapturePayment, captureAnswer, INJECTED_CAPTURE_DECLINE } from './capture-payment.handler';

/** Choreography: access granted, so nothing can say no any more: take the money. */
@Injectable()
export class CapturePaymentReaction {
  constructor(
    private readonly capturePayment: CapturePayment,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(AccessGranted, { consumer: 'billing.capture-payment', where: CHOREOGRAPHED })
  async onAccessGranted({ checkoutId }: AccessGrantedPayload): Promise<void> {
    const { answered, result } = await this.steps.run(
      'billing.capture-payment',
      () => this.capturePayment.execute({ checkoutId, idempotencyKey: `${checkoutId}:billing.capture-payment` }),
      () => INJECTED_CAPTURE_DECLINE,
    );
    if (!answered || !result?.isNew) return;
    const { contract, payload } = captureAnswer(checkoutId, result);
    await this.outbox.publish(contract, payload, { aggregateId: checkoutId });
  }
}
