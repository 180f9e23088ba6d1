import { Injectable } from '@nestjs/common';
import { InjectedFault } from '../../../infra/faults/faults';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessActivated, type AccessGrantedPayload } from '../../content/contracts';
import { WelcomeEmailSent } from '../contracts';
import { SendWelcomeEmail } from './send-welcome-email.handler';

export const STEP = 'notifications.send-welcome-email';

/** An email cannot say no: an injected `fail` is a failure, retried like any other. */
export const injectedFailure = () => {
  throw new InjectedFault(`step:${STEP}`);
};

/** Choreography: the money is taken and the access is the buyer's, so welcome them. */
@Injectable()
export class SendWelcomeEmailReaction {
  constructor(
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(AccessActivated, { consumer: 'notifications.send-welcome-email', where: CHOREOGRAPHED, exclusive: true })
  async onAccessActivated({ checkoutId, userId, planId }: AccessGrantedPayload): Promise<void> {
    const { answered, result } = await this.steps.run(
      STEP,
      () => this.sendWelcomeEmail.execute({ checkoutId, userId, planId }),
      injectedFailure,
    );
    if (!answered || !result?.isNew) return;
    await this.outbox.publish(WelcomeEmailSent, { checkoutId, emailId: result.emailId }, { aggregateId: checkoutId });
  }
}
