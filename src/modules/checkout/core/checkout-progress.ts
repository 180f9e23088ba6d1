import { Injectable, Logger } from '@nestjs/common';
import { CheckoutMetrics } from '../checkout.metrics';
import { STEP_ORDER } from './checkout-steps';
import { type CheckoutRow, CheckoutsRepository } from '../database/checkouts.repository';
import { advance, type CheckoutProgress, isTerminal, type ProgressFact } from '../domain/checkout';

/**
 * Writes what is learned about a checkout into its status read model, under a lock on the row:
 * facts about one checkout may be handled at the same time by different deliveries. A saga,
 * which writes its checkout's progress with its own state, asks what the facts make of it
 * (`after`) and says when it has written it (`written`).
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
    const next = this.after(checkout, [fact]);
    if (!next) return;
    await this.checkouts.saveProgress(checkoutId, next);
    this.written({ ...checkout, status: next.status });
  }

  /** The checkout's progress once these facts are learned, or undefined if they change nothing. */
  after(checkout: CheckoutRow, facts: ProgressFact[]): CheckoutProgress | undefined {
    const current: CheckoutProgress = {
      status: checkout.status,
      step: checkout.step,
      failureReason: checkout.failure_reason,
    };
    const next = facts.reduce((progress, fact) => advance(progress, fact, STEP_ORDER) ?? progress, current);
    return next === current ? undefined : next;
  }

  /** Counts an outcome, once the checkout that reached it is written. */
  written(checkout: Pick<CheckoutRow, 'mode' | 'status' | 'created_at'>): void {
    if (isTerminal(checkout.status)) this.metrics.observeOutcome(checkout);
  }
}
