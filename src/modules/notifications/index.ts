export { NotificationsModule } from './notifications.module';
export { SendWelcomeEmail, type WelcomeOutcome } from './send-welcome-email/send-welcome-email.handler';
