import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
import { IdentityApi } from '../../identity';
import { mailConfig, type MailConfig } from '../mail/mail.config';
import { MailTransport, messageIdFor } from '../mail/mail-transport';

export const WELCOME_TEMPLATE = 'welcome';

export type WelcomeOutcome = { outcome: 'sent'; emailId: string; isNew: boolean };

/**
 * Step 5 of a checkout: welcome the buyer. It only ever follows a captured payment, because an
 * email cannot be taken back; a failure is retried until sent, never compensated. The email is
 * recorded, then handed to the transport, in one transaction: if sending fails, the record rolls
 * back and the next attempt sends. If the commit fails after the transport took the email, the
 * next attempt sends it again: email is delivered at least once (SMTP has no idempotency key),
 * and everything else about it happens once. Its consumers are exclusive, so that no other
 * delivery's failure ever makes it send again, and its Message-ID is derived from the checkout,
 * so that a second copy is recognisable as the same email downstream.
 */
@Injectable()
export class SendWelcomeEmail {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly identity: IdentityApi,
    private readonly mail: MailTransport,
    @Inject(mailConfig.KEY) private readonly config: MailConfig,
  ) {}

  async execute({
    checkoutId,
    userId,
    planId,
  }: {
    checkoutId: string;
    userId: string;
    planId: string;
  }): Promise<WelcomeOutcome> {
    const tx = this.txHost.tx;
    const [existing] = await tx.query<Array<{ id: string }>>(
      `SELECT id FROM notifications.emails WHERE checkout_id = $1 AND template = $2`,
      [checkoutId, WELCOME_TEMPLATE],
    );
    if (existing) return { outcome: 'sent', emailId: existing.id, isNew: false };

    const buyer = await this.identity.findUser(userId);
    if (!buyer) throw new Error(`No user ${userId} to welcome`);
    const mail = {
      to: buyer.email,
      subject: `Welcome to ${planId}`,
      text: `Hello ${buyer.name},\n\nyour ${planId} plan is ready. Enjoy it.\n`,
      messageId: messageIdFor(WELCOME_TEMPLATE, checkoutId, this.config.from),
      checkoutId,
      template: WELCOME_TEMPLATE,
    };
    const emailId = randomUUID();
    // The unique key makes a concurrent second attempt wait here, then fail, and on its retry find the first.
    await tx.query(
      `INSERT INTO notifications.emails (id, checkout_id, template, recipient, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [emailId, checkoutId, WELCOME_TEMPLATE, mail.to, mail.subject, mail.text],
    );
    await this.mail.send(mail);
    return { outcome: 'sent', emailId, isNew: true };
  }
}
