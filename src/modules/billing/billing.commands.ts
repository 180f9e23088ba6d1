import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../infra/faults/step-faults';
import { answer, CommandExecution, OnMessage } from '../../infra/outbox';
import type { CompensationCommandPayload, SagaCommandPayload } from '../checkout/contracts';
import { AuthorizePayment, authorizationAnswer, INJECTED_DECLINE } from './authorize-payment/authorize-payment.handler';
import { CapturePayment, captureAnswer, INJECTED_CAPTURE_DECLINE } from './capture-payment/capture-payment.handler';
import {
  AuthorizePaymentCommand,
  type AuthorizePaymentCommandPayload,
  BillingStepFailed,
  CapturePaymentCommand,
  PaymentVoided,
  VoidAuthorizationCommand,
} from './contracts';
import { VoidAuthorization } from './void-authorization/void-authorization.handler';

/**
 * Orchestration: billing's steps carried out on command, answered with the same events the
 * choreography uses. A repeated command is answered again (the orchestrator may have missed the
 * first answer); a command whose work throws is answered with BillingStepFailed.
 */
@Injectable()
export class BillingCommands {
  constructor(
    private readonly authorizePayment: AuthorizePayment,
    private readonly capturePayment: CapturePayment,
    private readonly voidAuthorization: VoidAuthorization,
    private readonly steps: StepFaults,
    private readonly commands: CommandExecution,
  ) {}

  @OnMessage(AuthorizePaymentCommand, { consumer: 'billing.authorize-payment-command' })
  authorize(command: AuthorizePaymentCommandPayload): Promise<void> {
    const step = 'billing.authorize-payment';
    return this.commands.execute(
      { aggregateId: command.checkoutId },
      async () => {
        const run = await this.steps.run(
          step,
          () => this.authorizePayment.execute(command),
          () => INJECTED_DECLINE,
        );
        return run.answered && run.result ? authorizationAnswer(command.checkoutId, run.result) : undefined;
      },
      (error) => answer(BillingStepFailed, { checkoutId: command.checkoutId, step, error, attempt: command.attempt }),
    );
  }

  @OnMessage(CapturePaymentCommand, { consumer: 'billing.capture-payment-command' })
  capture(command: SagaCommandPayload): Promise<void> {
    const step = 'billing.capture-payment';
    return this.commands.execute(
      { aggregateId: command.checkoutId },
      async () => {
        const run = await this.steps.run(
          step,
          () => this.capturePayment.execute(command),
          () => INJECTED_CAPTURE_DECLINE,
        );
        return run.answered && run.result ? captureAnswer(command.checkoutId, run.result) : undefined;
      },
      (error) => answer(BillingStepFailed, { checkoutId: command.checkoutId, step, error, attempt: command.attempt }),
    );
  }

  @OnMessage(VoidAuthorizationCommand, { consumer: 'billing.void-authorization-command' })
  void(command: CompensationCommandPayload): Promise<void> {
    const step = 'billing.void-authorization';
    return this.commands.execute(
      { aggregateId: command.checkoutId },
      async () => {
        const result = await this.steps.compensate(step, () => this.voidAuthorization.execute(command));
        if (result.outcome === 'not-voidable') throw new Error(result.reason);
        return answer(PaymentVoided, {
          checkoutId: command.checkoutId,
          paymentId: result.paymentId,
          reason: command.reason,
        });
      },
      (error) => answer(BillingStepFailed, { checkoutId: command.checkoutId, step, error, attempt: command.attempt }),
    );
  }
}
