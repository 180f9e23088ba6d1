import { Injectable, Logger } from '@nestjs/common';
import { InjectedFault } from '../../../infra/faults/faults';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage } from '../../../infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../billing/contracts';
import { CorrectWelcomeEmail } from './correct-welcome-email.handler';

/** Not a step of the checkout but of the refund that follows it; its fault points are `step:<this>...`. */
export const CORRECTION_STEP = 'notifications.correct-welcome-email';

/** Like the welcome, the correction cannot say no: an injected `fail` is a failure, retried. */
const injectedFailure = () => {
  throw new InjectedFault(`step:${CORRECTION_STEP}`);
};

/** Either mode: the money of a checkout went back to the buyer, so correct what we told them. */
@Injectable()
export class CorrectWelcomeEmailReaction {
  private readonly logger = new Logger('CorrectWelcomeEmail');

  constructor(
    private readonly correctWelcomeEmail: CorrectWelcomeEmail,
    private readonly steps: StepFaults,
  ) {}

  @OnMessage(PaymentRefunded, { consumer: 'notifications.correct-welcome-email', exclusive: true })
  async onPaymentRefunded({ checkoutId, amountCents, currency }: PaymentRefundedPayload): Promise<void> {
    const { result } = await this.steps.run(
      CORRECTION_STEP,
      () => this.correctWelcomeEmail.execute({ checkoutId, amountCents, currency }),
      injectedFailure,
    );
    if (result?.outcome === 'nothing-to-correct') {
      this.logger.warn(`Checkout ${checkoutId} was refunded before any welcome email: nothing to correct`);
    }
  }
}
