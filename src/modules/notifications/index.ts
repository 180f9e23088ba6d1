export { NotificationsModule } from './notifications.module';
export { NotificationsApi } from './notifications.api';
export type { WelcomeOutcome } from './send-welcome-email/send-welcome-email.use-case';
