import { Logger } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Where emails leave the system. Sending is irreversible: it happens once it has been decided. */
export abstract class MailTransport {
  abstract send(mail: Mail): Promise<void>;
}

/** The default: the email is written to the log (the notifications table keeps it too). */
export class LogMailTransport extends MailTransport {
  private readonly logger = new Logger('Mail');

  async send(mail: Mail): Promise<void> {
    this.logger.log(`To ${mail.to}: ${mail.subject}`);
  }
}

/** With SMTP_URL set: a real SMTP server, through nodemailer. */
export class SmtpMailTransport extends MailTransport {
  private readonly transporter: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    super();
    this.transporter = createTransport(url);
  }

  async send(mail: Mail): Promise<void> {
    await this.transporter.sendMail({ from: this.from, ...mail });
  }
}
