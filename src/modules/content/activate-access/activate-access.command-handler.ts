import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import type { SagaCommandPayload } from '../../checkout/contracts';
import { ActivateAccessCommand } from '../contracts';
import { ActivateAccess } from './activate-access.use-case';
import { activateAccessStep } from './activate-access.step';

/** Orchestration: make the access active on command; a failure is told, and the orchestrator retries. */
@Injectable()
export class ActivateAccessCommandHandler {
  constructor(
    private readonly activateAccess: ActivateAccess,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(ActivateAccessCommand.type)
  @Consumer('content.activate-access-command')
  handle(command: SagaCommandPayload): Promise<void> {
    return this.steps.command(activateAccessStep, command, () => this.activateAccess.execute(command));
  }
}
