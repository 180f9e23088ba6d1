import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { isDatabaseUnavailable } from '../../../infra/database/database-unavailable';
import { describeError } from '../../../infra/errors';

/** What the record of a hand-over keeps of the email (a Mail of the transport). */
export interface HandedOverMail {
  messageId: string;
  checkoutId: string;
  template: string;
  to: string;
}

/** The first pause before a hand-over's record is tried again while Postgres is out of reach; it doubles up to the cap. */
const RECORD_RETRY_FIRST_MS = 100;
const RECORD_RETRY_CAP_MS = 2_000;

/**
 * Where every hand-over is written down: in its own connection, committed at once, outside the
 * sending handler's transaction, because what left the system does not roll back with us. A retry
 * of the delivery reads it (CheckoutEmails), so while Postgres is out of reach the record waits
 * for it, as long as the process lives: without it, the retry would send the email again.
 */
export class MailHandovers implements OnApplicationShutdown {
  private readonly logger = new Logger('MailHandovers');
  private readonly pool: Pool;
  private closing = false;

  constructor(databaseUrl: string) {
    this.pool = new Pool({ connectionString: databaseUrl, max: 2, application_name: 'mail-handovers' });
    this.pool.on('error', () => undefined); // an idle connection lost with Postgres: the next call opens another
  }

  async record(mail: HandedOverMail, transport: string): Promise<void> {
    for (let pauseMs = RECORD_RETRY_FIRST_MS; ; pauseMs = Math.min(pauseMs * 2, RECORD_RETRY_CAP_MS)) {
      try {
        await this.pool.query(
          `INSERT INTO notifications.mail_handovers (message_id, checkout_id, template, recipient, transport)
           VALUES ($1, $2, $3, $4, $5)`,
          [mail.messageId, mail.checkoutId, mail.template, mail.to, transport],
        );
        if (pauseMs > RECORD_RETRY_FIRST_MS) this.logger.log(`Email ${mail.messageId}: hand-over recorded`);
        return;
      } catch (error) {
        if (this.closing || !isDatabaseUnavailable(error)) throw error;
        if (pauseMs === RECORD_RETRY_FIRST_MS) {
          this.logger.warn(
            `Email ${mail.messageId} was handed over; its record waits for Postgres (${describeError(error)})`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    await this.pool.end();
  }
}
