import { Injectable } from '@nestjs/common';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { PaymentCaptured, type PaymentPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { WelcomeEmailSent } from '../contracts';
import { SendWelcomeEmail } from './send-welcome-email.handler';

/** Choreography: the money is taken, so welcome the buyer. */
@Injectable()
export class SendWelcomeEmailReaction {
  constructor(
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(PaymentCaptured, { consumer: 'notifications.send-welcome-email', where: CHOREOGRAPHED })
  async onPaymentCaptured({ checkoutId, userId, planId }: PaymentPayload): Promise<void> {
    const result = await this.sendWelcomeEmail.execute({ checkoutId, userId, planId });
    if (!result.isNew) return;
    await this.outbox.publish(WelcomeEmailSent, { checkoutId, emailId: result.emailId }, { aggregateId: checkoutId });
  }
}
