import { Module, type OnModuleInit } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { databaseConfig, type DatabaseConfig } from '../../config/database.config';
import { DatabaseModule } from '../../infra/database/database.module';
import { StepCatalog } from '../../infra/steps';
import { IdentityModule } from '../identity';
import { CorrectWelcomeEmail } from './correct-welcome-email/correct-welcome-email.use-case';
import { CorrectWelcomeEmailReaction } from './correct-welcome-email/correct-welcome-email.reaction';
import { correctWelcomeEmailStep } from './correct-welcome-email/correct-welcome-email.step';
import { CreateNotificationsSchema1795970000400 } from './database/migrations/1795970000400-create-notifications-schema';
import { CreateEmails1795970002400 } from './database/migrations/1795970002400-create-emails';
import { EmailsRepository } from './database/emails.repository';
import { MailHandovers } from './database/mail-handovers';
import { CreateMailHandovers1795970004400 } from './database/migrations/1795970004400-create-mail-handovers';
import { CheckoutEmails } from './mail/checkout-emails';
import { mailConfig, type MailConfig } from './mail/mail.config';
import { LogMailTransport, MailTransport, SmtpMailTransport } from './mail/mail-transport';
import { NotificationsApi } from './notifications.api';
import { SendWelcomeEmailCommandHandler } from './send-welcome-email/send-welcome-email.command-handler';
import { SendWelcomeEmail } from './send-welcome-email/send-welcome-email.use-case';
import { SendWelcomeEmailReaction } from './send-welcome-email/send-welcome-email.reaction';

/** Emails to buyers: the welcome after a sale, and its correction after a refund. */
@Module({
  imports: [
    ConfigModule.forFeature(mailConfig),
    IdentityModule,
    DatabaseModule.forFeature({
      migrations: [CreateNotificationsSchema1795970000400, CreateEmails1795970002400, CreateMailHandovers1795970004400],
    }),
  ],
  providers: [
    {
      provide: MailHandovers,
      inject: [databaseConfig.KEY],
      // Postgres itself: the sending transaction holds a pooler's server connection while it records.
      useFactory: (config: DatabaseConfig) => new MailHandovers(config.directUrl),
    },
    {
      provide: MailTransport,
      inject: [mailConfig.KEY, MailHandovers],
      useFactory: (config: MailConfig, handovers: MailHandovers) =>
        config.smtpUrl
          ? new SmtpMailTransport(handovers, config.smtpUrl, config.from, config.smtpTimeouts)
          : new LogMailTransport(handovers),
    },
    EmailsRepository,
    CheckoutEmails,
    NotificationsApi,
    SendWelcomeEmail,
    SendWelcomeEmailReaction,
    SendWelcomeEmailCommandHandler,
    CorrectWelcomeEmail,
    CorrectWelcomeEmailReaction,
  ],
  exports: [NotificationsApi],
})
export class NotificationsModule implements OnModuleInit {
  constructor(private readonly steps: StepCatalog) {}

  /** The correction after a refund is a step of this module's, as the welcome is one of the checkout's. */
  onModuleInit(): void {
    this.steps.declare([correctWelcomeEmailStep.name]);
  }
}
