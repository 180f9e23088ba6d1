import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../../src/modules/billing/contracts';
import { Mailer, Mailroom } from './exercise';

/**
 * Wrong: corrects every refunded buyer, whether or not they were ever welcomed. A compensation
 * must undo what happened, not what the happy path would have done: a buyer whose welcome never
 * went out gets a correction of an email they never received.
 */
@Injectable()
export class CorrectWelcome {
  constructor(
    private readonly mailroom: Mailroom,
    private readonly mailer: Mailer,
  ) {}

  @OnEvent(PaymentRefunded.type)
  @Consumer('mailroom.correct-welcome', { exclusive: true })
  async handle({ checkoutId }: PaymentRefundedPayload): Promise<void> {
    const buyer = await this.mailroom.buyerOf(checkoutId);
    if (!buyer) return;
    await this.mailer.send({
      kind: 'welcome-correction',
      checkoutId,
      to: buyer.email,
      subject: 'Your payment was refunded',
      text: `Hello ${buyer.name},\n\nwe refunded your payment. Please disregard our welcome email.\n`,
    });
  }
}
