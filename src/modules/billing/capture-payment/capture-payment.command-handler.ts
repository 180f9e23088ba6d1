import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import type { SagaCommandPayload } from '../../checkout/contracts';
import { CapturePaymentCommand } from '../contracts';
import { CapturePayment } from './capture-payment.use-case';
import { capturePaymentStep } from './capture-payment.step';

/** Orchestration: take the money on command, answered as in the choreography, every time. */
@Injectable()
export class CapturePaymentCommandHandler {
  constructor(
    private readonly capturePayment: CapturePayment,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(CapturePaymentCommand.type)
  @Consumer('billing.capture-payment-command')
  handle(command: SagaCommandPayload): Promise<void> {
    return this.steps.command(capturePaymentStep, command, () => this.capturePayment.execute(command));
  }
}
