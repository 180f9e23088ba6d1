import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { SendWelcomeEmailCommand, type SendWelcomeEmailCommandPayload } from '../contracts';
import { SendWelcomeEmail } from './send-welcome-email.use-case';
import { sendWelcomeEmailStep } from './send-welcome-email.step';

/** Orchestration: welcome the buyer on command; a failure is told, and the orchestrator retries. */
@Injectable()
export class SendWelcomeEmailCommandHandler {
  constructor(
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(SendWelcomeEmailCommand.type)
  @Consumer('notifications.send-welcome-email-command', { exclusive: true })
  handle(command: SendWelcomeEmailCommandPayload): Promise<void> {
    return this.steps.command(sendWelcomeEmailStep, command, () => this.sendWelcomeEmail.execute(command));
  }
}
