import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessRefused, AccessRevoked, type AccessUndonePayload } from '../../content/contracts';
import { authorizeKey } from '../authorize-payment/authorize-payment.reaction';
import { PaymentVoided } from '../contracts';
import { VoidAuthorization } from './void-authorization.handler';

/**
 * Choreography's compensation, as a reaction: when content refuses access (a sale it cannot
 * license) or revokes it (after a declined capture), billing releases the held funds. Content
 * undoes its part first, so the checkout is undone in the reverse order it was done.
 */
@Injectable()
export class VoidAuthorizationReaction {
  constructor(
    private readonly voidAuthorization: VoidAuthorization,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage([AccessRefused, AccessRevoked], { consumer: 'billing.void-authorization', where: CHOREOGRAPHED })
  async onAccessUndone({ checkoutId, reason }: AccessUndonePayload): Promise<void> {
    const result = await this.steps.compensate('billing.void-authorization', () =>
      this.voidAuthorization.execute({ checkoutId, idempotencyKey: authorizeKey(checkoutId) }),
    );
    if (result.outcome === 'not-voidable')
      throw new Error(`Cannot void the payment of ${checkoutId}: ${result.reason}`);
    if (!result.isNew) return;
    await this.outbox.publish(
      PaymentVoided,
      { checkoutId, paymentId: result.paymentId, reason },
      { aggregateId: checkoutId },
    );
  }
}
