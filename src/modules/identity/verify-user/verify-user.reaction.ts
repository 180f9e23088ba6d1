import { Injectable } from '@nestjs/common';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { CHOREOGRAPHED, CheckoutRequested, type CheckoutRequestedPayload } from '../../checkout/contracts';
import { BuyerRejected, BuyerVerified } from '../contracts';
import { VerifyUser } from './verify-user.handler';

/** Choreography: a requested checkout is answered with the buyer's verdict. */
@Injectable()
export class VerifyUserReaction {
  constructor(
    private readonly verifyUser: VerifyUser,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(CheckoutRequested, { consumer: 'identity.verify-user', where: CHOREOGRAPHED })
  async onCheckoutRequested({ checkoutId, userId }: CheckoutRequestedPayload): Promise<void> {
    const verdict = await this.verifyUser.verify(userId);
    if (verdict.verified) {
      await this.outbox.publish(
        BuyerVerified,
        { checkoutId, userId, country: verdict.country },
        { aggregateId: checkoutId },
      );
    } else {
      await this.outbox.publish(
        BuyerRejected,
        { checkoutId, userId, reason: verdict.reason },
        { aggregateId: checkoutId },
      );
    }
  }
}
