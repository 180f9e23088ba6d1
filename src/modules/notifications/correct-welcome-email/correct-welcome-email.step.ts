import type { Step } from '../../../infra/steps';
import type { CorrectionOutcome, CorrectWelcomeEmailInput } from './correct-welcome-email.handler';

/**
 * Not a step of the checkout but of the refund that follows it. Like the welcome, the correction
 * cannot say no, and nothing waits for it: it announces nothing.
 */
export const correctWelcomeEmailStep: Step<CorrectWelcomeEmailInput, CorrectionOutcome> = {
  name: 'notifications.correct-welcome-email',
};
