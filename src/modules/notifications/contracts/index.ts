import { IsString, IsUUID } from 'class-validator';
import { defineCommand, defineEvent } from '../../../infra/outbox';
import { SagaCommandPayload, StepFailedPayload } from '../../checkout/contracts';

/** Notifications' actions on a checkout, by name: the checkout's table and the step declarations both use these. */
export const NOTIFICATIONS_STEPS = {
  sendWelcomeEmail: 'notifications.send-welcome-email',
  correctWelcomeEmail: 'notifications.correct-welcome-email',
} as const;

export class WelcomeEmailSentPayload {
  @IsUUID() checkoutId!: string;
  @IsUUID() emailId!: string;
}
/** The buyer was welcomed: the last step of a checkout. */
export const WelcomeEmailSent = defineEvent('notifications.welcome-email-sent.v1', WelcomeEmailSentPayload);

export class SendWelcomeEmailCommandPayload extends SagaCommandPayload {
  @IsUUID() userId!: string;
  @IsString() planId!: string;
}
/** Orchestration: welcome the buyer. Answered with WelcomeEmailSent. */
export const SendWelcomeEmailCommand = defineCommand(
  'notifications.send-welcome-email.v1',
  SendWelcomeEmailCommandPayload,
);

/** Orchestration: notifications could not carry out a command; nothing of it was kept. */
export const NotificationsStepFailed = defineEvent('notifications.step-failed.v1', StepFailedPayload);
