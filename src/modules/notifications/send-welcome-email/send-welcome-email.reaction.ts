import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { InvoiceIssued, type InvoiceIssuedPayload } from '../../billing/contracts';
import { SendWelcomeEmail } from './send-welcome-email.use-case';
import { sendWelcomeEmailStep } from './send-welcome-email.step';

/** Choreography: the money is taken, the access is the buyer's and the sale invoiced, so welcome them. */
@Injectable()
export class SendWelcomeEmailReaction {
  constructor(
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(InvoiceIssued.type)
  @Consumer('notifications.send-welcome-email', { where: CHOREOGRAPHED, exclusive: true })
  async onInvoiceIssued({ checkoutId, userId, planId }: InvoiceIssuedPayload): Promise<void> {
    const input = { checkoutId, userId, planId };
    await this.steps.react(sendWelcomeEmailStep, input, () => this.sendWelcomeEmail.execute(input));
  }
}
