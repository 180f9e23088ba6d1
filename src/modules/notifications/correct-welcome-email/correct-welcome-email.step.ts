import type { Step } from '../../../infra/steps';
import type { CorrectionOutcome, CorrectWelcomeEmailInput } from './correct-welcome-email.use-case';
import { NOTIFICATIONS_STEPS } from '../contracts';

/**
 * Not a step of the checkout but of the refund that follows it. Like the welcome, the correction
 * cannot say no, and nothing waits for it: it announces nothing.
 */
export const correctWelcomeEmailStep: Step<CorrectWelcomeEmailInput, CorrectionOutcome> = {
  name: NOTIFICATIONS_STEPS.correctWelcomeEmail,
};
