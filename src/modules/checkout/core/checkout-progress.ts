import { Injectable, Logger } from '@nestjs/common';
import { CheckoutMetrics } from '../checkout.metrics';
import { STEP_ORDER } from './checkout-steps';
import { CheckoutsRepository } from '../database/checkouts.repository';
import { advance, isTerminal, type ProgressFact } from '../domain/checkout';

/**
 * Writes what is learned about a checkout into its status read model, under a lock on the row:
 * facts about one checkout may be handled at the same time by different deliveries.
 */
@Injectable()
export class CheckoutProgressRecorder {
  private readonly logger = new Logger('CheckoutProgress');

  constructor(
    private readonly checkouts: CheckoutsRepository,
    private readonly metrics: CheckoutMetrics,
  ) {}

  async record(checkoutId: string, fact: ProgressFact): Promise<void> {
    const checkout = await this.checkouts.lock(checkoutId);
    if (!checkout) {
      this.logger.warn(`A fact about unknown checkout ${checkoutId} was ignored: ${fact.kind}`);
      return;
    }
    const current = { status: checkout.status, step: checkout.step, failureReason: checkout.failure_reason };
    const next = advance(current, fact, STEP_ORDER);
    if (!next) return;
    const saved = await this.checkouts.saveProgress(checkoutId, next);
    if (isTerminal(next.status)) this.metrics.observeOutcome(saved);
  }
}
