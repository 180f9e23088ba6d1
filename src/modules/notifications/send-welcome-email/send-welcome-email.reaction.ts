import { Injectable } from '@nestjs/common';
import { InjectedFault } from '../../../infra/faults/faults';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { PaymentCaptured, type PaymentPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { WelcomeEmailSent } from '../contracts';
import { SendWelcomeEmail } from './send-welcome-email.handler';

export const STEP = 'notifications.send-welcome-email';

/** An email cannot say no: an injected `fail` is a failure, retried like any other. */
export const injectedFailure = () => {
  throw new InjectedFault(`step:${STEP}`);
};

/** Choreography: the money is taken, so welcome the buyer. */
@Injectable()
export class SendWelcomeEmailReaction {
  constructor(
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(PaymentCaptured, { consumer: 'notifications.send-welcome-email', where: CHOREOGRAPHED, exclusive: true })
  async onPaymentCaptured({ checkoutId, userId, planId }: PaymentPayload): Promise<void> {
    const { answered, result } = await this.steps.run(
      STEP,
      () => this.sendWelcomeEmail.execute({ checkoutId, userId, planId }),
      injectedFailure,
    );
    if (!answered || !result?.isNew) return;
    await this.outbox.publish(WelcomeEmailSent, { checkoutId, emailId: result.emailId }, { aggregateId: checkoutId });
  }
}
