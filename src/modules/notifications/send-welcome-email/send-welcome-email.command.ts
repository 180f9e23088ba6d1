import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../../infra/faults/step-faults';
import { answer, CommandExecution, OnMessage } from '../../../infra/outbox';
import {
  NotificationsStepFailed,
  SendWelcomeEmailCommand,
  type SendWelcomeEmailCommandPayload,
  WelcomeEmailSent,
} from '../contracts';
import { SendWelcomeEmail } from './send-welcome-email.handler';
import { injectedFailure, STEP } from './send-welcome-email.reaction';

/** Orchestration: welcome the buyer on command; a failure is told, and the orchestrator retries. */
@Injectable()
export class SendWelcomeEmailCommandHandler {
  constructor(
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly steps: StepFaults,
    private readonly commands: CommandExecution,
  ) {}

  @OnMessage(SendWelcomeEmailCommand, { consumer: 'notifications.send-welcome-email-command', exclusive: true })
  handle(command: SendWelcomeEmailCommandPayload): Promise<void> {
    return this.commands.execute(
      { aggregateId: command.checkoutId },
      async () => {
        const run = await this.steps.run(STEP, () => this.sendWelcomeEmail.execute(command), injectedFailure);
        return run.answered && run.result
          ? answer(WelcomeEmailSent, { checkoutId: command.checkoutId, emailId: run.result.emailId })
          : undefined;
      },
      (error) =>
        answer(NotificationsStepFailed, {
          checkoutId: command.checkoutId,
          step: STEP,
          error,
          attempt: command.attempt,
        }),
    );
  }
}
