import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { GrantAccessCommand, type GrantAccessCommandPayload } from '../contracts';
import { GrantAccess } from './grant-access.use-case';
import { grantAccessStep } from './grant-access.step';

/** Orchestration: give access on command, answered as in the choreography, every time. */
@Injectable()
export class GrantAccessCommandHandler {
  constructor(
    private readonly grantAccess: GrantAccess,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(GrantAccessCommand.type)
  @Consumer('content.grant-access-command')
  handle(command: GrantAccessCommandPayload): Promise<void> {
    return this.steps.command(grantAccessStep, command, () => this.grantAccess.execute(command));
  }
}
