import { Injectable } from '@nestjs/common';
import { together } from '../../../infra/database/one-write';
import { IdentityApi } from '../../identity';
import { EmailsRepository } from '../database/emails.repository';
import { CheckoutEmails, WELCOME_TEMPLATE } from '../mail/checkout-emails';

export interface SendWelcomeEmailInput {
  checkoutId: string;
  userId: string;
  planId: string;
}

export type WelcomeOutcome = { outcome: 'sent'; emailId: string; isNew: boolean };

/**
 * Step 5 of a checkout: welcome the buyer. It only ever follows a captured payment, because an
 * email cannot be taken back; a failure is retried until sent, never compensated. The email is
 * recorded, then handed to the transport, in one transaction: if sending fails, the record rolls
 * back and the next attempt sends. If the commit fails after the transport took the email, the
 * next attempt finds the transport's record of the hand-over and does not send it again
 * (CheckoutEmails); only a process killed between the SMTP server's answer and that record sends
 * a second copy (SMTP has no idempotency key). Its consumers are exclusive, so that no other
 * delivery's failure ever makes it run again, and its Message-ID is derived from the checkout,
 * so that a second copy is recognisable as the same email downstream.
 */
@Injectable()
export class SendWelcomeEmail {
  constructor(
    private readonly recorded: EmailsRepository,
    private readonly identity: IdentityApi,
    private readonly emails: CheckoutEmails,
  ) {}

  async execute({ checkoutId, userId, planId }: SendWelcomeEmailInput): Promise<WelcomeOutcome> {
    // Asked for together (one round trip): the buyer is not needed when the email was sent.
    const [existing, buyer] = await together([
      this.recorded.findId(checkoutId, WELCOME_TEMPLATE),
      this.identity.findUser(userId),
    ]);
    if (existing) return { outcome: 'sent', emailId: existing, isNew: false };
    if (!buyer) throw new Error(`No user ${userId} to welcome`);
    const { emailId, isNew } = await this.emails.send({
      checkoutId,
      template: WELCOME_TEMPLATE,
      to: buyer.email,
      subject: `Welcome to ${planId}`,
      text: `Hello ${buyer.name},\n\nyour ${planId} plan is ready. Enjoy it.\n`,
    });
    return { outcome: 'sent', emailId, isNew };
  }
}
