import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DeliveryRuns, type RunClaim } from './delivery-runs';
import { DONE, JobDelivery, type Next } from './job-delivery';
import { OutboxMetrics } from '../outbox.metrics';
import type { OutboxDelivery } from '../outbox.queues';
import type { Subscription } from './subscriptions';
import { isUnreachable } from '../unreachable';

/**
 * The delivery of a job suspected of killing its worker (it stalled, or a batch of it did). With
 * the process to itself, it first claims its run (DeliveryRuns): the runs left by dead processes
 * are charged, and at OUTBOX_CRASH_LIMIT it is dead-lettered instead; while it runs alone in a live
 * process elsewhere (cut from Redis, its job taken from it), it waits, unspent. Beside others (it
 * waited for them in vain, see DeliveryTurns), it runs unrecorded: a death then is not its own to
 * be charged with.
 */
@Injectable()
export class SuspectDelivery {
  private readonly logger = new Logger('OutboxConsumer');

  constructor(
    private readonly delivery: JobDelivery,
    private readonly runs: DeliveryRuns,
    private readonly metrics: OutboxMetrics,
  ) {}

  async deliver(
    job: Job,
    named: OutboxDelivery,
    subscription: Subscription,
    attempt: number,
    aloneInProcess: boolean,
  ): Promise<Next> {
    if (!aloneInProcess) return this.delivery.deliver(job, named, attempt, true);
    const startedAt = Date.now();
    const takes = { types: subscription.contracts.map((contract) => contract.type), where: subscription.where };
    let claim: RunClaim;
    try {
      claim = await this.runs.claim(named, takes, attempt);
    } catch (error) {
      if (isUnreachable(error)) return { kind: 'postpone', error };
      throw error;
    }
    if (claim.kind === 'dead') {
      this.logger.error(
        `Dead letter: ${claim.type ?? 'message'} (message ${named.id}) for ${named.consumer}: ${claim.reason}`,
      );
      this.metrics.observeHandled(named.consumer, 'dead', startedAt);
      return DONE;
    }
    if (claim.kind === 'elsewhere') {
      this.logger.warn(`${named.consumer} runs message ${named.id} in a live process elsewhere: job ${job.id} waits`);
      return { kind: 'postpone', error: new Error('running in a live process elsewhere') };
    }
    const runId = claim.kind === 'run' ? claim.runId : undefined;
    let committed = false;
    try {
      const next = await this.delivery.deliver(job, named, attempt, true, runId);
      committed = true;
      return next;
    } finally {
      if (runId) await this.runs.ended(runId, committed);
    }
  }
}
