import { Injectable } from '@nestjs/common';
import { InjectedFault } from '../../../infra/faults/faults';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { PaymentCaptured, type PaymentPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { ActivateAccess, activationAnswer } from './activate-access.handler';

export const STEP = 'content.activate-access';

/** Activating cannot say no: an injected `fail` is a failure, retried like any other. */
export const injectedFailure = () => {
  throw new InjectedFault(`step:${STEP}`);
};

/** Choreography: the money is taken, so the provisional access becomes the buyer's for real. */
@Injectable()
export class ActivateAccessReaction {
  constructor(
    private readonly activateAccess: ActivateAccess,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(PaymentCaptured, { consumer: 'content.activate-access', where: CHOREOGRAPHED })
  async onPaymentCaptured({ checkoutId }: PaymentPayload): Promise<void> {
    const { answered, result } = await this.steps.run(
      STEP,
      () => this.activateAccess.execute({ checkoutId }),
      injectedFailure,
    );
    if (!answered || !result?.isNew) return;
    const { contract, payload } = activationAnswer(checkoutId, result);
    await this.outbox.publish(contract, payload, { aggregateId: checkoutId });
  }
}
