import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessActivated, type AccessGrantedPayload } from '../../content/contracts';
import { SendWelcomeEmail } from './send-welcome-email.use-case';
import { sendWelcomeEmailStep } from './send-welcome-email.step';

/** Choreography: the money is taken and the access is the buyer's, so welcome them. */
@Injectable()
export class SendWelcomeEmailReaction {
  constructor(
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(AccessActivated.type)
  @Consumer('notifications.send-welcome-email', { where: CHOREOGRAPHED, exclusive: true })
  async onAccessActivated({ checkoutId, userId, planId }: AccessGrantedPayload): Promise<void> {
    const input = { checkoutId, userId, planId };
    await this.steps.react(sendWelcomeEmailStep, input, () => this.sendWelcomeEmail.execute(input));
  }
}
