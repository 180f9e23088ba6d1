import { outgoing } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { NOTIFICATIONS_STEPS, NotificationsStepFailed, WelcomeEmailSent } from '../contracts';
import type { SendWelcomeEmailInput, WelcomeOutcome } from './send-welcome-email.use-case';

/** Welcoming the buyer, announced as sent. An email cannot say no. */
export const sendWelcomeEmailStep: CommandStep<SendWelcomeEmailInput, WelcomeOutcome> = {
  name: NOTIFICATIONS_STEPS.sendWelcomeEmail,
  answer: ({ checkoutId }, { emailId }) => outgoing(WelcomeEmailSent, { checkoutId, emailId }),
  isNew: (result) => result.isNew,
  failure: NotificationsStepFailed,
};
