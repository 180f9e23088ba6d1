import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../../infra/faults/step-faults';
import { answer, CommandExecution, OnMessage } from '../../../infra/outbox';
import {
  BuyerRejected,
  BuyerVerified,
  IdentityStepFailed,
  VerifyUserCommand,
  type VerifyUserCommandPayload,
} from '../contracts';
import { INJECTED_REFUSAL, VerifyUser } from './verify-user.handler';

const STEP = 'identity.verify-user';

/** Orchestration: the orchestrator asks, identity answers with its verdict. */
@Injectable()
export class VerifyUserCommandHandler {
  constructor(
    private readonly verifyUser: VerifyUser,
    private readonly steps: StepFaults,
    private readonly commands: CommandExecution,
  ) {}

  @OnMessage(VerifyUserCommand, { consumer: 'identity.verify-user-command' })
  handle({ checkoutId, userId, attempt }: VerifyUserCommandPayload): Promise<void> {
    return this.commands.execute(
      { aggregateId: checkoutId },
      async () => {
        const { answered, result: verdict } = await this.steps.run(
          STEP,
          () => this.verifyUser.verify(userId),
          () => INJECTED_REFUSAL,
        );
        if (!answered || !verdict) return undefined;
        return verdict.verified
          ? answer(BuyerVerified, { checkoutId, userId, country: verdict.country })
          : answer(BuyerRejected, { checkoutId, userId, reason: verdict.reason });
      },
      (error) => answer(IdentityStepFailed, { checkoutId, step: STEP, error, attempt }),
    );
  }
}
