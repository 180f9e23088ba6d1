import { Inject, Injectable, Logger } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
import { sendWithNext } from '../../../infra/database/app-pg-client';
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
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly mail: MailTransport,
    @Inject(mailConfig.KEY) private readonly config: MailConfig,
  ) {}

  /** Records and hands over the email (unless it was handed over already); answers its id. */
  async send({ checkoutId, template, to, subject, text }: CheckoutEmail): Promise<string> {
    const tx = this.txHost.tx;
    const emailId = randomUUID();
    // The unique key makes a concurrent second attempt wait here, then fail, and on its retry find
    // the first. The row rides with the read of the hand-overs, which Postgres runs after it.
    await sendWithNext(
      tx,
      `INSERT INTO notifications.emails (id, checkout_id, template, recipient, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [emailId, checkoutId, template, to, subject, text],
    );
    const [{ handed_at: handedAt }] = await tx.query<Array<{ handed_at: Date | null }>>(
      `SELECT min(handed_at) AS handed_at FROM notifications.mail_handovers WHERE checkout_id = $1 AND template = $2`,
      [checkoutId, template],
    );
    const messageId = messageIdFor(template, checkoutId, this.config.from);
    if (handedAt) {
      this.logger.log(`Email ${messageId} was handed over at ${handedAt.toISOString()}: not sent again`);
      return emailId;
    }
    await this.mail.send({ to, subject, text, messageId, checkoutId, template });
    return emailId;
  }
}
