import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown, type Type } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTransport, type Transporter } from 'nodemailer';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DatabaseModule } from '../../../src/infra/database/database.module';
import { Consumer } from '../../../src/infra/outbox';
import { PaymentCaptured, type PaymentPayload } from '../../../src/modules/billing/contracts';
import { IdentityApi, IdentityModule } from '../../../src/modules/identity';

/**
 * The mailroom: a small emailing module of the exercise's own, beside the app. It knows the buyer
 * of every paid checkout, welcomes them, and keeps a record of each welcome it sent. Your answer
 * (starter.ts, solution.ts) is the one class it lacks: what the mailroom does when a checkout's
 * money goes back to the buyer (`billing.payment-refunded.v1`).
 */

/** One email. `kind` names what it is; with the checkout it makes the Message-ID. */
export interface Mail {
  kind: string;
  checkoutId: string;
  to: string;
  subject: string;
  text: string;
}

export interface Buyer {
  email: string;
  name: string;
}

export interface WelcomeRecord {
  recipient: string;
  sentAt: Date;
}

/** What the answer exports: the provider that handles the refund. */
export interface Answer {
  CorrectWelcome: Type<unknown>;
}

export const SMTP_URL = Symbol('mailroom SMTP URL');

/**
 * Hands an email to the SMTP server, which is the outside world: once it has accepted an email,
 * nothing can take it back. Its Message-ID is `<kind.checkoutId@mailroom.test>`, the same for
 * every copy of one email, which is how a mail store recognises (and drops) a second copy.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly transporter: Transporter;

  constructor(@Inject(SMTP_URL) url: string) {
    this.transporter = createTransport(url);
  }

  async send({ kind, checkoutId, to, subject, text }: Mail): Promise<void> {
    await this.transporter.sendMail({
      from: 'Mailroom <mail@mailroom.test>',
      to,
      subject,
      text,
      messageId: `<${kind}.${checkoutId}@mailroom.test>`,
    });
  }

  onApplicationShutdown(): void {
    this.transporter.close();
  }
}

/** The mailroom's records, read and written in the transaction of the delivery being handled. */
@Injectable()
export class Mailroom {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Who paid for this checkout, whether or not they were welcomed. */
  async buyerOf(checkoutId: string): Promise<Buyer | undefined> {
    const [buyer] = await this.txHost.tx.query<Buyer[]>(
      `SELECT email, name FROM mailroom.buyers WHERE checkout_id = $1`,
      [checkoutId],
    );
    return buyer;
  }

  /** The welcome email this checkout's buyer was sent, if one went out. */
  async welcomeOf(checkoutId: string): Promise<WelcomeRecord | undefined> {
    const [welcome] = await this.txHost.tx.query<Array<{ recipient: string; sent_at: Date }>>(
      `SELECT recipient, sent_at FROM mailroom.welcomes WHERE checkout_id = $1`,
      [checkoutId],
    );
    return welcome && { recipient: welcome.recipient, sentAt: welcome.sent_at };
  }

  /** Deletes the record of a checkout's welcome. The email itself is in the buyer's inbox. */
  async forgetWelcome(checkoutId: string): Promise<void> {
    await this.txHost.tx.query(`DELETE FROM mailroom.welcomes WHERE checkout_id = $1`, [checkoutId]);
  }
}

/** Given: the money is taken, so the mailroom notes the buyer, then welcomes them (two consumers). */
@Injectable()
export class Welcome {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly identity: IdentityApi,
    private readonly mailer: Mailer,
  ) {}

  @OnEvent(PaymentCaptured.type)
  @Consumer('mailroom.note-buyer')
  async noteBuyer({ checkoutId, userId }: PaymentPayload): Promise<void> {
    const user = await this.identity.findUser(userId);
    if (!user) throw new Error(`No user ${userId}`);
    await this.txHost.tx.query(
      `INSERT INTO mailroom.buyers (checkout_id, email, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [checkoutId, user.email, user.name],
    );
  }

  @OnEvent(PaymentCaptured.type)
  @Consumer('mailroom.send-welcome', { exclusive: true })
  async sendWelcome({ checkoutId, userId, planId }: PaymentPayload): Promise<void> {
    const user = await this.identity.findUser(userId);
    if (!user) throw new Error(`No user ${userId}`);
    await this.txHost.tx.query(`INSERT INTO mailroom.welcomes (checkout_id, recipient) VALUES ($1, $2)`, [
      checkoutId,
      user.email,
    ]);
    await this.mailer.send({
      kind: 'welcome',
      checkoutId,
      to: user.email,
      subject: `Welcome to ${planId}`,
      text: `Hello ${user.name},\n\nyour payment went through and your ${planId} plan is ready. Enjoy it.\n`,
    });
  }
}

class CreateMailroom1795979999300 implements MigrationInterface {
  name = 'CreateMailroom1795979999300';
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SCHEMA IF NOT EXISTS mailroom`);
    await db.query(`CREATE TABLE IF NOT EXISTS mailroom.buyers (
      checkout_id uuid PRIMARY KEY, email text NOT NULL, name text NOT NULL)`);
    await db.query(`CREATE TABLE IF NOT EXISTS mailroom.welcomes (
      checkout_id uuid PRIMARY KEY, recipient text NOT NULL, sent_at timestamptz NOT NULL DEFAULT now())`);
  }
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP SCHEMA mailroom CASCADE`);
  }
}

/** The mailroom with the answer under test, sending through the SMTP server at `smtpUrl`. */
@Module({})
export class MailroomModule {
  static with(answer: Answer, smtpUrl: string): DynamicModule {
    return {
      module: MailroomModule,
      imports: [IdentityModule, DatabaseModule.forFeature({ migrations: [CreateMailroom1795979999300] })],
      providers: [{ provide: SMTP_URL, useValue: smtpUrl }, Mailer, Mailroom, Welcome, answer.CorrectWelcome],
    };
  }
}
