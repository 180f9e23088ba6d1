import { Injectable } from '@nestjs/common';
import { OnMessage } from '../../../infra/outbox';
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

  @OnMessage(RevokeAccessCommand, { consumer: 'content.revoke-access-command' })
  handle(command: CompensationCommandPayload): Promise<void> {
    return this.steps.command(revokeAccessStep, command, () => this.revokeAccess.execute(command));
  }
}
