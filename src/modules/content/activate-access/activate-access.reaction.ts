import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { PaymentCaptured, type PaymentPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { ActivateAccess } from './activate-access.use-case';
import { activateAccessStep } from './activate-access.step';

/** Choreography: the money is taken, so the provisional access becomes the buyer's for real. */
@Injectable()
export class ActivateAccessReaction {
  constructor(
    private readonly activateAccess: ActivateAccess,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(PaymentCaptured.type)
  @Consumer('content.activate-access', { where: CHOREOGRAPHED })
  async onPaymentCaptured({ checkoutId }: PaymentPayload): Promise<void> {
    const input = { checkoutId };
    await this.steps.react(activateAccessStep, input, () => this.activateAccess.execute(input));
  }
}
