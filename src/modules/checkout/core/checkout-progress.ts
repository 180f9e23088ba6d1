import { Injectable, Logger } from '@nestjs/common';
import { CheckoutMetrics } from '../checkout.metrics';
import { STEP_ORDER } from './checkout-steps';
import { type CheckoutRow, CheckoutsRepository, type NewCheckout } from '../database/checkouts.repository';
import { advance, type CheckoutProgress, isTerminal, type ProgressFact } from '../domain/checkout';

/**
 * Writes what is learned about a checkout into its status read model, in one conditional UPDATE
 * that applies the progress rule (`advance`) in SQL, sent with the transaction's COMMIT: facts about one checkout may be handled at
 * the same time by different deliveries, and Postgres applies them one after the other. A saga,
 * which writes its checkout's progress with its own state, asks what the facts make of it
 * (`after`, the rule in TypeScript) and says when it has written it (`written`).
 */
@Injectable()
export class CheckoutProgressRecorder {
  private readonly logger = new Logger('CheckoutProgress');

  constructor(
    private readonly checkouts: CheckoutsRepository,
    private readonly metrics: CheckoutMetrics,
  ) {}

  /**
   * The move rides with the transaction's next statement, its COMMIT as a rule (no round trip of its
   * own); what it did is logged and counted once that is answered. Its failure fails that statement.
   */
  async record(checkoutId: string, fact: ProgressFact): Promise<void> {
    const { move } = await this.checkouts.moveProgressWithNext(checkoutId, fact, STEP_ORDER);
    move.then(
      ({ known, moved }) => {
        if (!known) this.logger.warn(`A fact about unknown checkout ${checkoutId} was ignored: ${fact.kind}`);
        if (moved) this.written(moved);
      },
      () => undefined,
    );
  }

  /** The checkout's progress once these facts are learned, or undefined if they change nothing. */
  after(
    checkout: Pick<NewCheckout, 'status' | 'step' | 'failure_reason'>,
    facts: ProgressFact[],
  ): CheckoutProgress | undefined {
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
