import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../infra/faults/step-faults';
import { answer, CommandExecution, OnMessage } from '../../infra/outbox';
import type { CompensationCommandPayload, SagaCommandPayload } from '../checkout/contracts';
import { ActivateAccess, activationAnswer } from './activate-access/activate-access.handler';
import { injectedFailure, STEP as ACTIVATE_STEP } from './activate-access/activate-access.reaction';
import {
  AccessRevoked,
  ActivateAccessCommand,
  ContentStepFailed,
  GrantAccessCommand,
  type GrantAccessCommandPayload,
  RevokeAccessCommand,
} from './contracts';
import { GrantAccess, grantAnswer, INJECTED_REFUSAL } from './grant-access/grant-access.handler';
import { RevokeAccess } from './revoke-access/revoke-access.handler';

/** Orchestration: content's steps carried out on command, answered as in the choreography. */
@Injectable()
export class ContentCommands {
  constructor(
    private readonly grantAccess: GrantAccess,
    private readonly activateAccess: ActivateAccess,
    private readonly revokeAccess: RevokeAccess,
    private readonly steps: StepFaults,
    private readonly commands: CommandExecution,
  ) {}

  @OnMessage(GrantAccessCommand, { consumer: 'content.grant-access-command' })
  grant(command: GrantAccessCommandPayload): Promise<void> {
    const step = 'content.grant-access';
    return this.commands.execute(
      { aggregateId: command.checkoutId },
      async () => {
        const run = await this.steps.run(
          step,
          () => this.grantAccess.execute(command),
          () => INJECTED_REFUSAL,
        );
        return run.answered && run.result ? grantAnswer(command, run.result) : undefined;
      },
      (error) => answer(ContentStepFailed, { checkoutId: command.checkoutId, step, error, attempt: command.attempt }),
    );
  }

  @OnMessage(ActivateAccessCommand, { consumer: 'content.activate-access-command' })
  activate(command: SagaCommandPayload): Promise<void> {
    return this.commands.execute(
      { aggregateId: command.checkoutId },
      async () => {
        const run = await this.steps.run(ACTIVATE_STEP, () => this.activateAccess.execute(command), injectedFailure);
        return run.answered && run.result ? activationAnswer(command.checkoutId, run.result) : undefined;
      },
      (error) =>
        answer(ContentStepFailed, {
          checkoutId: command.checkoutId,
          step: ACTIVATE_STEP,
          error,
          attempt: command.attempt,
        }),
    );
  }

  @OnMessage(RevokeAccessCommand, { consumer: 'content.revoke-access-command' })
  revoke(command: CompensationCommandPayload): Promise<void> {
    const step = 'content.revoke-access';
    return this.commands.execute(
      { aggregateId: command.checkoutId },
      async () => {
        const result = await this.steps.compensate(step, () => this.revokeAccess.execute(command));
        return answer(AccessRevoked, {
          checkoutId: command.checkoutId,
          entitlementId: result.entitlementId,
          reason: command.reason,
        });
      },
      (error) => answer(ContentStepFailed, { checkoutId: command.checkoutId, step, error, attempt: command.attempt }),
    );
  }
}
