import { Injectable } from '@nestjs/common';
import { EmailsRepository } from '../database/emails.repository';
import { CheckoutEmails, CORRECTION_TEMPLATE, WELCOME_TEMPLATE } from '../mail/checkout-emails';

export interface CorrectWelcomeEmailInput {
  checkoutId: string;
  amountCents: number;
  currency: string;
}

export type CorrectionOutcome =
  | { outcome: 'sent'; emailId: string; isNew: boolean }
  /** No welcome email went out for this checkout, so there is nothing to correct. */
  | { outcome: 'nothing-to-correct' };

/**
 * The semantic compensation of a welcome email. An email cannot be unsent, and deleting our
 * record of it would only make us forget what the buyer read; so when the money of a welcomed
 * checkout goes back, the buyer gets a second email that says so, to the address the welcome went
 * to. It is sent the way the welcome is (recorded and handed over in one transaction, a
 * Message-ID derived from the checkout, an exclusive consumer), so it goes out once however often
 * the refund is delivered, and at least once: only a process killed between the SMTP server's
 * answer and the record of the hand-over sends it again.
 */
@Injectable()
export class CorrectWelcomeEmail {
  constructor(
    private readonly recorded: EmailsRepository,
    private readonly emails: CheckoutEmails,
  ) {}

  async execute({ checkoutId, amountCents, currency }: CorrectWelcomeEmailInput): Promise<CorrectionOutcome> {
    const emails = await this.recorded.findOfCheckout(checkoutId, [WELCOME_TEMPLATE, CORRECTION_TEMPLATE]);
    const corrected = emails.find((email) => email.template === CORRECTION_TEMPLATE);
    if (corrected) return { outcome: 'sent', emailId: corrected.id, isNew: false };
    const welcome = emails.find((email) => email.template === WELCOME_TEMPLATE);
    if (!welcome) return { outcome: 'nothing-to-correct' };

    const amount = `${(amountCents / 100).toFixed(2)} ${currency}`;
    const welcomedOn = welcome.sent_at.toISOString().slice(0, 10);
    const { emailId, isNew } = await this.emails.send({
      checkoutId,
      template: CORRECTION_TEMPLATE,
      to: welcome.recipient,
      subject: `Your payment of ${amount} was refunded`,
      // Says what the refund changed and what it did not: a correction that promised more than
      // the system does would need a correction of its own.
      text:
        `Hello,\n\nwe refunded your payment of ${amount}: it is on its way back to your card.\n` +
        `This corrects our welcome email of ${welcomedOn}, which confirmed that purchase.\n` +
        `The refund does not close your access: your plan stays open to you.\n`,
    });
    return { outcome: 'sent', emailId, isNew };
  }
}
