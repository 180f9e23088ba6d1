import { answer } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { NotificationsStepFailed, WelcomeEmailSent } from '../contracts';
import type { SendWelcomeEmailInput, WelcomeOutcome } from './send-welcome-email.handler';

/** Welcoming the buyer, announced as sent. An email cannot say no. */
export const sendWelcomeEmailStep: CommandStep<SendWelcomeEmailInput, WelcomeOutcome> = {
  name: 'notifications.send-welcome-email',
  answer: ({ checkoutId }, { emailId }) => answer(WelcomeEmailSent, { checkoutId, emailId }),
  isNew: (result) => result.isNew,
  failure: NotificationsStepFailed,
};
