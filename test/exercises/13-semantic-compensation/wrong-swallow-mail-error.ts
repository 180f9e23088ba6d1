import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../../src/modules/billing/contracts';
import { Mailer, Mailroom } from './exercise';

/**
 * A learner's words: "The refund is done whatever happens to an email. If the mail server
 * hiccups, I log it and carry on: a failed email must not fail the refund's handling, nor be
 * retried into a storm."
 *
 * What it gets wrong: the try/catch swallows the only sign that the correction did not go out.
 * The delivery is recorded as handled, the inbox will never run it again, and a buyer who was
 * told "your payment went through" is never told it was refunded. A failure the transport does
 * not see is a failure nobody retries.
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
    try {
      await this.mailer.send({
        kind: 'welcome-correction',
        checkoutId,
        to: welcome.recipient,
        subject: 'Your payment was refunded',
        text: 'Hello,\n\nwe refunded your payment. This corrects our welcome email.\n',
      });
    } catch (error) {
      this.logger.warn(`Could not send the correction of checkout ${checkoutId}: ${String(error)}`);
    }
  }
}
