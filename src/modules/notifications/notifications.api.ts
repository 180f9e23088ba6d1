import { Injectable } from '@nestjs/common';
import { Hooks } from '../../infra/hooks/hooks';
import type { StepRun } from '../../infra/steps';
import {
  SendWelcomeEmail,
  type SendWelcomeEmailInput,
  type WelcomeOutcome,
} from './send-welcome-email/send-welcome-email.use-case';
import { sendWelcomeEmailStep } from './send-welcome-email/send-welcome-email.step';

/**
 * What other modules may ask notifications: the checkout's welcome, for a checkout carried by
 * something other than this app's transport (the bench's peers), in the caller's transaction
 * under the step's hooks, as the step runner runs it.
 */
@Injectable()
export class NotificationsApi {
  constructor(
    private readonly hooks: Hooks,
    private readonly welcome: SendWelcomeEmail,
  ) {}

  sendWelcomeEmail(input: SendWelcomeEmailInput): Promise<StepRun<WelcomeOutcome>> {
    return this.hooks.step(sendWelcomeEmailStep, () => this.welcome.execute(input));
  }
}
