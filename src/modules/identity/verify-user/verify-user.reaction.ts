import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CHOREOGRAPHED, CheckoutRequested, type CheckoutRequestedPayload } from '../../checkout/contracts';
import { VerifyUser } from './verify-user.use-case';
import { verifyUserStep } from './verify-user.step';

/** Choreography: a requested checkout is answered with the buyer's verdict. */
@Injectable()
export class VerifyUserReaction {
  constructor(
    private readonly verifyUser: VerifyUser,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(CheckoutRequested.type)
  @Consumer('identity.verify-user', { where: CHOREOGRAPHED })
  async onCheckoutRequested({ checkoutId, userId }: CheckoutRequestedPayload): Promise<void> {
    await this.steps.react(verifyUserStep, { checkoutId, userId }, () => this.verifyUser.verify(userId));
  }
}
