import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';

/** An email recorded for a checkout, as a later one reads it. */
export interface EmailRow {
  id: string;
  template: string;
  recipient: string;
  sent_at: Date;
}

/** A checkout's emails, at most one of each template by the unique (checkout, template) key. */
@Injectable()
export class EmailsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /**
   * Records the email unless one of its template is recorded for the checkout, and reads when it
   * was first handed over, in one statement. An attempt running at the same time as another
   * waits on the unique key for the other's commit, then records nothing (`inserted` null).
   */
  async recordUnlessRecorded(email: {
    checkoutId: string;
    template: string;
    to: string;
    subject: string;
    text: string;
  }): Promise<{ inserted: string | null; handedAt: Date | null }> {
    const [{ inserted, handed_at: handedAt }] = await this.txHost.tx.query<
      Array<{ inserted: string | null; handed_at: Date | null }>
    >(
      `WITH inserted AS (
         INSERT INTO notifications.emails (id, checkout_id, template, recipient, subject, body)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (checkout_id, template) DO NOTHING
         RETURNING id)
       SELECT (SELECT id FROM inserted) AS inserted,
              (SELECT min(handed_at) FROM notifications.mail_handovers
                WHERE checkout_id = $2 AND template = $3) AS handed_at`,
      [randomUUID(), email.checkoutId, email.template, email.to, email.subject, email.text],
    );
    return { inserted, handedAt };
  }

  /** The id of the checkout's email of that template, if one is recorded. */
  async findId(checkoutId: string, template: string): Promise<string | undefined> {
    const [recorded] = await this.txHost.tx.query<Array<{ id: string }>>(
      `SELECT id FROM notifications.emails WHERE checkout_id = $1 AND template = $2`,
      [checkoutId, template],
    );
    return recorded?.id;
  }

  /** The checkout's emails of those templates. */
  findOfCheckout(checkoutId: string, templates: string[]): Promise<EmailRow[]> {
    return this.txHost.tx.query<EmailRow[]>(
      `SELECT id, template, recipient, sent_at FROM notifications.emails
        WHERE checkout_id = $1 AND template = ANY($2::text[])`,
      [checkoutId, templates],
    );
  }
}
