import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
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
 * hand-over fails, the record rolls back and the next attempt sends; if the commit fails after
 * it, the next attempt sends again (SMTP has no idempotency key), with the same Message-ID,
 * derived from the checkout, so that the copy is recognisable as the same email.
 */
@Injectable()
export class CheckoutEmails {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly mail: MailTransport,
    @Inject(mailConfig.KEY) private readonly config: MailConfig,
  ) {}

  /** Records and hands over the email; answers its id. */
  async send({ checkoutId, template, to, subject, text }: CheckoutEmail): Promise<string> {
    const emailId = randomUUID();
    // The unique key makes a concurrent second attempt wait here, then fail, and on its retry find the first.
    await this.txHost.tx.query(
      `INSERT INTO notifications.emails (id, checkout_id, template, recipient, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [emailId, checkoutId, template, to, subject, text],
    );
    const messageId = messageIdFor(template, checkoutId, this.config.from);
    await this.mail.send({ to, subject, text, messageId, checkoutId, template });
    return emailId;
  }
}
