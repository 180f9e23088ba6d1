import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { PaymentAuthorized, type PaymentPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { GrantAccess, grantAnswer, INJECTED_REFUSAL } from './grant-access.handler';

/** Choreography: funds are held, so give access, or say why not (and billing will void). */
@Injectable()
export class GrantAccessReaction {
  constructor(
    private readonly grantAccess: GrantAccess,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(PaymentAuthorized, { consumer: 'content.grant-access', where: CHOREOGRAPHED })
  async onPaymentAuthorized({ checkoutId, userId, planId }: PaymentPayload): Promise<void> {
    const command = { checkoutId, userId, planId, idempotencyKey: `${checkoutId}:content.grant-access` };
    const { answered, result } = await this.steps.run(
      'content.grant-access',
      () => this.grantAccess.execute(command),
      () => INJECTED_REFUSAL,
    );
    if (!answered || !result?.isNew) return;
    const { contract, payload } = grantAnswer(command, result);
    await this.outbox.publish(contract, payload, { aggregateId: checkoutId });
  }
}
