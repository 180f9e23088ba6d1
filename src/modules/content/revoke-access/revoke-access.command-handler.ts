import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import type { CompensationCommandPayload } from '../../checkout/contracts';
import { RevokeAccessCommand } from '../contracts';
import { RevokeAccess } from './revoke-access.use-case';
import { revokeAccessStep } from './revoke-access.step';

/** Orchestration: withdraw the access on command, answered every time. */
@Injectable()
export class RevokeAccessCommandHandler {
  constructor(
    private readonly revokeAccess: RevokeAccess,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(RevokeAccessCommand.type)
  @Consumer('content.revoke-access-command')
  handle(command: CompensationCommandPayload): Promise<void> {
    return this.steps.command(revokeAccessStep, command, () => this.revokeAccess.execute(command));
  }
}
