import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { Pool } from 'pg';
import { isDatabaseUnavailable } from '../../../infra/database/database-unavailable';
import { describeError } from '../../../infra/errors';
import { callOutside } from '../../../infra/failure-source';
import type { MailConfig } from './mail.config';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /**
   * The RFC 5322 Message-ID, derived from what the email is about, so that the same email sent
   * twice carries the same id and a receiver (or a mail system) can recognise the second copy.
   */
  messageId: string;
  /** What the email is about, for the record of hand-overs. */
  checkoutId: string;
  template: string;
}

/**
 * `<welcome.<checkout id>@<domain of the sender>>` (or `<welcome-correction.` ...): the same for every
 * attempt at one checkout's email of that template.
 */
export function messageIdFor(template: string, checkoutId: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return `<${template}.${checkoutId}@${domain}>`;
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

  async record(mail: Mail, transport: string): Promise<void> {
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

/**
 * Where emails leave the system. Sending is irreversible: it happens once it has been decided,
 * and each hand-over is recorded as it happens.
 */
export abstract class MailTransport {
  private readonly log = new Logger('MailTransport');

  constructor(private readonly handovers: MailHandovers) {}

  /**
   * Hands the email over, then records that it did (waiting for Postgres if need be). A record
   * that fails all the same is logged, not thrown: the handler's transaction may still commit, and
   * then a missing record only makes the checker report a missing email.
   */
  async send(mail: Mail): Promise<void> {
    await this.handOver(mail);
    await this.handovers.record(mail, this.name).catch((error: unknown) => {
      this.log.error(`Email ${mail.messageId} was handed over but not recorded: ${describeError(error)}`);
    });
  }

  protected abstract readonly name: string;
  protected abstract handOver(mail: Mail): Promise<void>;
}

/** The default: the email is written to the log (the notifications table keeps it too). */
export class LogMailTransport extends MailTransport {
  protected readonly name = 'log';
  private readonly logger = new Logger('Mail');

  protected async handOver(mail: Mail): Promise<void> {
    this.logger.log(`To ${mail.to}: ${mail.subject} (${mail.messageId})`);
  }
}

/**
 * With SMTP_URL set: a real SMTP server, through nodemailer. The server is an outside service:
 * its failures spend the delivery's attempts, even those whose code reads as an outage (a timeout
 * is ETIMEDOUT), and each of its waits is bounded by the SMTP timeouts (ADR 0093).
 */
export class SmtpMailTransport extends MailTransport {
  protected readonly name = 'smtp';
  private readonly transporter: Transporter;

  constructor(
    handovers: MailHandovers,
    url: string,
    private readonly from: string,
    timeouts: MailConfig['smtpTimeouts'],
  ) {
    super(handovers);
    this.transporter = createTransport({
      url,
      connectionTimeout: timeouts.connectionMs,
      greetingTimeout: timeouts.greetingMs,
      socketTimeout: timeouts.socketMs,
    });
  }

  protected async handOver({ to, subject, text, messageId }: Mail): Promise<void> {
    await callOutside(this.name, () => this.transporter.sendMail({ from: this.from, to, subject, text, messageId }));
  }
}
