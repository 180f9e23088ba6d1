import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { CHOREOGRAPHED, CheckoutRequested, type CheckoutRequestedPayload } from '../../checkout/contracts';
import { BuyerRejected, BuyerVerified } from '../contracts';
import { INJECTED_REFUSAL, VerifyUser } from './verify-user.handler';

/** Choreography: a requested checkout is answered with the buyer's verdict. */
@Injectable()
export class VerifyUserReaction {
  constructor(
    private readonly verifyUser: VerifyUser,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(CheckoutRequested, { consumer: 'identity.verify-user', where: CHOREOGRAPHED })
  async onCheckoutRequested({ checkoutId, userId }: CheckoutRequestedPayload): Promise<void> {
    const { answered, result: verdict } = await this.steps.run(
      'identity.verify-user',
      () => this.verifyUser.verify(userId),
      () => INJECTED_REFUSAL,
    );
    if (!answered || !verdict) return;
    const on = { aggregateId: checkoutId };
    if (verdict.verified)
      await this.outbox.publish(BuyerVerified, { checkoutId, userId, country: verdict.country }, on);
    else await this.outbox.publish(BuyerRejected, { checkoutId, userId, reason: verdict.reason }, on);
  }
}
