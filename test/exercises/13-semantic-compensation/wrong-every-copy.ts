import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../../src/modules/billing/contracts';
import { Mailer, Mailroom } from './exercise';

/**
 * A learner's words: "Every email has a Message-ID made of its kind and its checkout, so a copy
 * of the correction is the same email: sending it twice is harmless. The handler can see every
 * delivery (`dedup: 'handler'`) and needs no dedup of its own."
 *
 * What it gets wrong: a Message-ID lets a mail store recognise a copy; it does not stop the mail
 * server from delivering it, nor the buyer from reading it twice. The inbox is what makes a
 * delivery take effect once; with `dedup: 'handler'` and no record of its own, every copy of the
 * refund sends one more correction.
 */
@Injectable()
export class CorrectWelcome {
  constructor(
    private readonly mailroom: Mailroom,
    private readonly mailer: Mailer,
  ) {}

  @OnEvent(PaymentRefunded.type)
  @Consumer('mailroom.correct-welcome', { dedup: 'handler', exclusive: true })
  async handle({ checkoutId }: PaymentRefundedPayload): Promise<void> {
    const welcome = await this.mailroom.welcomeOf(checkoutId);
    if (!welcome) return;
    await this.mailer.send({
      kind: 'welcome-correction',
      checkoutId,
      to: welcome.recipient,
      subject: 'Your payment was refunded',
      text: 'Hello,\n\nwe refunded your payment. This corrects our welcome email.\n',
    });
  }
}
