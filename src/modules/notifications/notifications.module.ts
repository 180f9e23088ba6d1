import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { IdentityModule } from '../identity';
import { CreateNotificationsSchema1795970000400 } from './database/migrations/1795970000400-create-notifications-schema';
import { CreateEmails1795970002400 } from './database/migrations/1795970002400-create-emails';
import { mailConfig, type MailConfig } from './mail/mail.config';
import { LogMailTransport, MailTransport, SmtpMailTransport } from './mail/mail-transport';
import { SendWelcomeEmailCommandHandler } from './send-welcome-email/send-welcome-email.command';
import { SendWelcomeEmail } from './send-welcome-email/send-welcome-email.handler';
import { SendWelcomeEmailReaction } from './send-welcome-email/send-welcome-email.reaction';

/** Emails to buyers. */
@Module({
  imports: [
    IdentityModule,
    DatabaseModule.forFeature({ migrations: [CreateNotificationsSchema1795970000400, CreateEmails1795970002400] }),
  ],
  providers: [
    {
      provide: MailTransport,
      inject: [mailConfig.KEY],
      useFactory: (config: MailConfig) =>
        config.smtpUrl ? new SmtpMailTransport(config.smtpUrl, config.from) : new LogMailTransport(),
    },
    SendWelcomeEmail,
    SendWelcomeEmailReaction,
    SendWelcomeEmailCommandHandler,
  ],
  exports: [SendWelcomeEmail],
})
export class NotificationsModule {}
