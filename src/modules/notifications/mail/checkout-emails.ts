import { Inject, Injectable, Logger } from '@nestjs/common';
import { EmailsRepository } from '../database/emails.repository';
import { mailConfig, type MailConfig } from './mail.config';
import { MailTransport, messageIdFor } from './mail-transport';

/** The emails a checkout can send a buyer: at most one of each, by the unique (checkout, template) key. */
export const WELCOME_TEMPLATE = 'welcome';
export const CORRECTION_TEMPLATE = 'welcome-correction';

export interface CheckoutEmail {
  checkoutId: string;
  template: string;
  to: string;
  subject: string;
  text: string;
}

/** A checkout's email as `send` left it: recorded now by this attempt, or found recorded by another. */
export interface SentEmail {
  emailId: string;
  /** Recorded by this attempt (false: another attempt, concurrent or earlier, recorded and sent it). */
  isNew: boolean;
}

/**
 * Sends a checkout's email the one way every such email goes out: recorded in
 * `notifications.emails`, then handed to the transport, in the caller's transaction. If the
 * hand-over fails, the record rolls back and the next attempt sends. If the transaction fails
 * after the hand-over (a cut connection, a failed commit), the transport's own record of the
 * hand-over, committed apart, is still there: the next attempt finds it, records the email and
 * does all the rest, but does not hand it over again. Only a process that dies between the SMTP
 * server's answer and that record leaves nothing to find; its retry sends a second copy, with the
 * same Message-ID, derived from the checkout, so that the copy is recognisable as the same email.
 */
@Injectable()
export class CheckoutEmails {
  private readonly logger = new Logger('CheckoutEmails');

  constructor(
    private readonly emails: EmailsRepository,
    private readonly mail: MailTransport,
    @Inject(mailConfig.KEY) private readonly config: MailConfig,
  ) {}

  /** Records and hands over the email (unless it was recorded or handed over already). */
  async send({ checkoutId, template, to, subject, text }: CheckoutEmail): Promise<SentEmail> {
    // An attempt running at the same time as another (an orchestrator's resend while the first
    // send is still at the SMTP server) waits here on the unique key for the other's commit, then
    // records nothing; one statement, with the read of the hand-overs.
    const { inserted, handedAt } = await this.emails.recordUnlessRecorded({ checkoutId, template, to, subject, text });
    if (!inserted) {
      // The statement's snapshot predates the other's commit: a new one sees its row.
      const recorded = await this.emails.findId(checkoutId, template);
      if (!recorded) throw new Error(`The ${template} email of checkout ${checkoutId} is neither new nor recorded`);
      return { emailId: recorded, isNew: false };
    }
    const messageId = messageIdFor(template, checkoutId, this.config.from);
    if (handedAt) {
      this.logger.log(`Email ${messageId} was handed over at ${handedAt.toISOString()}: not sent again`);
      return { emailId: inserted, isNew: true };
    }
    await this.mail.send({ to, subject, text, messageId, checkoutId, template });
    return { emailId: inserted, isNew: true };
  }
}
