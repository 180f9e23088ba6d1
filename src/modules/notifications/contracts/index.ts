import { IsUUID } from 'class-validator';
import { defineEvent } from '../../../infra/outbox';

export class WelcomeEmailSentPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() emailId!: string;
}
/** The buyer was welcomed: the last step of a checkout. */
export const WelcomeEmailSent = defineEvent('notifications.welcome-email-sent.v1', WelcomeEmailSentPayload);
