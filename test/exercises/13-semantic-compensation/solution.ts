import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../../src/modules/billing/contracts';
import { Mailer, Mailroom } from './exercise';

/**
 * A semantic compensation. The welcome email cannot be unsent, and deleting our record of it
 * would only make us forget what the buyer read. So the refund is answered by a new business
 * operation: a second email that says what changed, to whoever read the first. A buyer who was
 * never welcomed was never told anything, so there is nothing to correct.
 */
@Injectable()
export class CorrectWelcome {
  constructor(
    private readonly mailroom: Mailroom,
    private readonly mailer: Mailer,
  ) {}

  // Delivered at least once; the inbox (the default dedup) lets each refund take effect once.
  @OnEvent(PaymentRefunded.type)
  @Consumer('mailroom.correct-welcome', { exclusive: true })
  async handle({ checkoutId, amountCents, currency }: PaymentRefundedPayload): Promise<void> {
    const welcome = await this.mailroom.welcomeOf(checkoutId);
    if (!welcome) return;
    const amount = `${(amountCents / 100).toFixed(2)} ${currency}`;
    await this.mailer.send({
      kind: 'welcome-correction',
      checkoutId,
      to: welcome.recipient,
      subject: `Your payment of ${amount} was refunded`,
      text:
        `Hello,\n\nwe refunded your payment of ${amount}; it is on its way back to your card.\n` +
        `This corrects our welcome email of ${welcome.sentAt.toISOString().slice(0, 10)}.\n`,
    });
  }
}
