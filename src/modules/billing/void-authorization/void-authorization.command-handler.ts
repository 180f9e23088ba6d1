import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import type { CompensationCommandPayload } from '../../checkout/contracts';
import { VoidAuthorizationCommand } from '../contracts';
import { VoidAuthorization } from './void-authorization.use-case';
import { voidAuthorizationStep } from './void-authorization.step';

/** Orchestration: release the held funds on command; a void that cannot be done is told as a failure. */
@Injectable()
export class VoidAuthorizationCommandHandler {
  constructor(
    private readonly voidAuthorization: VoidAuthorization,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(VoidAuthorizationCommand.type)
  @Consumer('billing.void-authorization-command')
  handle(command: CompensationCommandPayload): Promise<void> {
    return this.steps.command(voidAuthorizationStep, command, () => this.voidAuthorization.execute(command));
  }
}
