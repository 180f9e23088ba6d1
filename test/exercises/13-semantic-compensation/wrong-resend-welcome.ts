import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../../src/modules/billing/contracts';
import { Mailer, Mailroom } from './exercise';

/**
 * Wrong: "updates" the welcome by sending it again, corrected, as the same email. It carries the
 * welcome's Message-ID, so a mail store that drops a second copy of a message it already has
 * (many do) shows the buyer the old welcome only: the correction never reaches them.
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
    const welcome = await this.mailroom.welcomeOf(checkoutId);
    if (!welcome) return;
    await this.mailer.send({
      kind: 'welcome',
      checkoutId,
      to: welcome.recipient,
      subject: 'Welcome (updated)',
      text: 'Hello,\n\nupdate: your payment was refunded, so this welcome no longer applies.\n',
    });
  }
}
