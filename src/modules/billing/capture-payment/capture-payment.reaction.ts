import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CHOREOGRAPHED, stepKey } from '../../checkout/contracts';
import { AccessGranted, type AccessGrantedPayload } from '../../content/contracts';
import { BILLING_STEPS } from '../contracts';
import { CapturePayment } from './capture-payment.use-case';
import { capturePaymentStep } from './capture-payment.step';

/** Choreography: access granted, so nothing can say no any more: take the money. */
@Injectable()
export class CapturePaymentReaction {
  constructor(
    private readonly capturePayment: CapturePayment,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(AccessGranted.type)
  @Consumer('billing.capture-payment', { where: CHOREOGRAPHED })
  async onAccessGranted({ checkoutId }: AccessGrantedPayload): Promise<void> {
    const input = { checkoutId, idempotencyKey: stepKey(checkoutId, BILLING_STEPS.capturePayment) };
    await this.steps.react(capturePaymentStep, input, () => this.capturePayment.execute(input));
  }
}
