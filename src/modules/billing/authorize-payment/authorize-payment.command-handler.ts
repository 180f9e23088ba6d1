import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { AuthorizePaymentCommand, type AuthorizePaymentCommandPayload } from '../contracts';
import { AuthorizePayment } from './authorize-payment.use-case';
import { authorizePaymentStep } from './authorize-payment.step';

/**
 * Orchestration: authorize on command, answered with the events the choreography uses. A repeated
 * command is answered again (the orchestrator may have missed the first answer).
 */
@Injectable()
export class AuthorizePaymentCommandHandler {
  constructor(
    private readonly authorizePayment: AuthorizePayment,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(AuthorizePaymentCommand.type)
  @Consumer('billing.authorize-payment-command')
  handle(command: AuthorizePaymentCommandPayload): Promise<void> {
    return this.steps.command(authorizePaymentStep, command, () => this.authorizePayment.execute(command));
  }
}
