import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../../src/modules/billing/contracts';
import { Mailer, Mailroom } from './exercise';

/**
 * A learner's words: "The handler only decides; the email leaves after it, in the background, so
 * that a slow mail server never holds the transaction open. The decision commits at once."
 *
 * What it gets wrong: once the handler has returned, its delivery is done for good, whatever
 * becomes of the email. When the mail server turns it away, the error lands in a callback that
 * nobody awaits, and nothing ever sends it again: the buyer never reads that they were refunded.
 */
@Injectable()
export class CorrectWelcome {
  private readonly logger = new Logger('CorrectWelcome');

  constructor(
    private readonly mailroom: Mailroom,
    private readonly mailer: Mailer,
  ) {}

  @OnEvent(PaymentRefunded.type)
  @Consumer('mailroom.correct-welcome', { exclusive: true })
  async handle({ checkoutId }: PaymentRefundedPayload): Promise<void> {
    const welcome = await this.mailroom.welcomeOf(checkoutId);
    if (!welcome) return;
    const correction = {
      kind: 'welcome-correction',
      checkoutId,
      to: welcome.recipient,
      subject: 'Your payment was refunded',
      text: 'Hello,\n\nwe refunded your payment. This corrects our welcome email.\n',
    };
    setImmediate(() => {
      this.mailer
        .send(correction)
        .catch((error: unknown) => this.logger.warn(`Correction of ${checkoutId} not sent: ${String(error)}`));
    });
  }
}
