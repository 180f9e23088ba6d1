import { Injectable, Logger } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../billing/contracts';
import { CorrectWelcomeEmail } from './correct-welcome-email.use-case';
import { correctWelcomeEmailStep } from './correct-welcome-email.step';

/** Either mode: the money of a checkout went back to the buyer, so correct what we told them. */
@Injectable()
export class CorrectWelcomeEmailReaction {
  private readonly logger = new Logger('CorrectWelcomeEmail');

  constructor(
    private readonly correctWelcomeEmail: CorrectWelcomeEmail,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(PaymentRefunded.type)
  @Consumer('notifications.correct-welcome-email', { exclusive: true })
  async onPaymentRefunded({ checkoutId, amountCents, currency }: PaymentRefundedPayload): Promise<void> {
    const input = { checkoutId, amountCents, currency };
    const { result } = await this.steps.react(correctWelcomeEmailStep, input, () =>
      this.correctWelcomeEmail.execute(input),
    );
    if (result?.outcome === 'nothing-to-correct') {
      this.logger.warn(`Checkout ${checkoutId} was refunded before any welcome email: nothing to correct`);
    }
  }
}
