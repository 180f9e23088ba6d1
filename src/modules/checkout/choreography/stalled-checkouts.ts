import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { outboxConfig, type OutboxConfig, TransportHistory } from '../../../infra/outbox';
import { PeriodicTasks } from '../../../infra/scheduling/periodic-tasks';
import { checkoutConfig, type CheckoutConfig } from '../checkout.config';
import { CheckoutsRepository } from '../database/checkouts.repository';
import { CheckoutProgressRecorder } from '../core/checkout-progress';
import { CHECKOUT_STEPS } from '../core/checkout-steps';

/**
 * The steps whose consumer waits out its participant's outages (the invoice); in choreography its
 * consumer bears the step's name.
 */
const PATIENT_STEPS: readonly string[] = CHECKOUT_STEPS.filter((row) => 'waitsOutOutages' in row).map(
  (row) => row.name,
);

/**
 * The watch a choreography lacks: a choreographed checkout that has made no progress for
 * CHECKOUT_STALLED_AFTER_MS (a message lost, a participant that took its work and never
 * answered) goes to INTERVENTION, where a person looks at its timeline. If it moves on after all,
 * its step follows, and it leaves INTERVENTION when it ends or a dead letter of it is redriven.
 * At a step that waits out outages, a checkout whose consumer is still retrying (a failed attempt
 * within its longest wait, OUTBOX_OUTAGE_MAX_WAIT_MS, and the watch's time) is left alone: the
 * transport's dead letter, not the watch, asks the person then. A message swallowed there, with
 * no attempt failing, is stalled as anywhere. Runs with the orchestrator role.
 */
@Injectable()
export class StalledCheckouts {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly checkouts: CheckoutsRepository,
    private readonly progress: CheckoutProgressRecorder,
    tasks: PeriodicTasks,
    @Inject(checkoutConfig.KEY) private readonly config: CheckoutConfig,
    private readonly history: TransportHistory,
    @Inject(outboxConfig.KEY) private readonly outbox: OutboxConfig,
  ) {
    const interval = Math.max(100, Math.min(config.stalledAfterMs / 4, 10_000));
    tasks.register('stalled-checkouts', 'orchestrator', interval, () => this.check());
  }

  check(): Promise<void> {
    return this.txHost.withTransaction(async () => {
      // Ages are measured by the database's clock, the one that stamped updated_at.
      const { stalledAfterMs } = this.config;
      const stalled = await this.checkouts.stalledChoreographies(stalledAfterMs, 100, PATIENT_STEPS);
      const waiting = stalled.filter((checkout) => PATIENT_STEPS.includes(checkout.step));
      const retrying = await this.history.retrying(
        waiting.map((checkout) => checkout.correlation_id),
        PATIENT_STEPS,
        this.outbox.outage.maxWaitMs + stalledAfterMs,
      );
      for (const checkout of stalled.filter(({ correlation_id }) => !retrying.has(correlation_id))) {
        await this.progress.record(checkout.id, {
          kind: 'intervention',
          reason: `no progress for ${checkout.stalled_seconds} s at ${checkout.step}: a message was lost, or a participant did its work and never said so`,
        });
      }
    });
  }
}
