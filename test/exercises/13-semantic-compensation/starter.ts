import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../../src/modules/billing/contracts';
import { Mailer, Mailroom } from './exercise';

/**
 * The operator refunded a checkout: the buyer's money is on its way back. The mailroom already
 * welcomed some of these buyers ("your payment went through, your plan is ready").
 */
@Injectable()
export class CorrectWelcome {
  constructor(
    private readonly mailroom: Mailroom,
    private readonly mailer: Mailer,
  ) {}

  @OnEvent(PaymentRefunded.type)
  @Consumer('mailroom.correct-welcome')
  async handle(refund: PaymentRefundedPayload): Promise<void> {
    // The refund undoes the sale, so undo the welcome too: as if it had never been sent.
    // TODO: the welcome is in the buyer's inbox and stays there. Make what the buyer reads true
    // again, once, for the buyers who were told something (README: "What done means").
    await this.mailroom.forgetWelcome(refund.checkoutId);
  }
}
