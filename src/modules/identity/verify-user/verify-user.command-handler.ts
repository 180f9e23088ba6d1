import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { VerifyUserCommand, type VerifyUserCommandPayload } from '../contracts';
import { VerifyUser } from './verify-user.use-case';
import { verifyUserStep } from './verify-user.step';

/** Orchestration: the orchestrator asks, identity answers with its verdict. */
@Injectable()
export class VerifyUserCommandHandler {
  constructor(
    private readonly verifyUser: VerifyUser,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(VerifyUserCommand.type)
  @Consumer('identity.verify-user-command')
  handle(command: VerifyUserCommandPayload): Promise<void> {
    return this.steps.command(verifyUserStep, command, () => this.verifyUser.verify(command.userId));
  }
}
