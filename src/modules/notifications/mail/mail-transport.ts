import { Logger } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { describeError } from '../../../infra/errors';
import { callOutside } from '../../../infra/failure-source';
import type { MailHandovers } from '../database/mail-handovers';
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
