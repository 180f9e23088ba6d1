import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { describeError } from '../../errors';
import { DeliveryTurns } from './delivery-turns';
import { attemptLimitOf, attemptOf, JobDelivery, LEAVE_FOR_OTHERS_MS, type Next } from './job-delivery';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import {
  type JobToPush,
  jobToGoOn,
  type OutboxBatchJob,
  type OutboxDelivery,
  type OutboxJob,
  type OutboxJobData,
  outboxBatchOf,
  outboxJobOf,
  OutboxQueues,
} from '../outbox.queues';
import { SuspectDelivery } from './suspect-delivery';
import { Subscriptions } from './subscriptions';
import { isUnreachable } from '../unreachable';

/** The longest a delivery postponed by an outage of Postgres or Redis waits before it is tried again. */
const OUTAGE_BACKOFF_CAP_MS = 10_000;

/**
 * What a worker does with a job it took: a job of one delivery, or a batch job of several. A
 * failing delivery is retried with exponential backoff, one postponed by an outage waits without
 * spending an attempt, one that this process cannot handle is left for another, and a job that
 * stalled (its worker died) runs alone from then on (DeliveryTurns, SuspectDelivery).
 */
@Injectable()
export class OutboxJobs {
  private readonly logger = new Logger('OutboxConsumer');
  private readonly turns = new DeliveryTurns();

  constructor(
    private readonly subscriptions: Subscriptions,
    private readonly delivery: JobDelivery,
    private readonly suspect: SuspectDelivery,
    private readonly queues: OutboxQueues,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /**
   * Throwing asks BullMQ to retry the job later. A delivery that fails because Postgres or Redis is
   * unreachable is postponed instead, with a backoff that doubles up to OUTAGE_BACKOFF_CAP_MS and
   * without spending an attempt: an outage never dead-letters a message.
   */
  async process(job: Job<OutboxJobData>, token?: string): Promise<void> {
    try {
      const batch = outboxBatchOf(job.data);
      if (batch) return await this.processBatch(job, batch, token);
      const named = outboxJobOf(job.data);
      if (!named) return this.delivery.refuse(job, 'malformed', 'its data does not name a message and a consumer');
      return await this.processOne(job as Job<OutboxJob>, named, token);
    } catch (error) {
      if (error instanceof DelayedError || !isUnreachable(error)) throw error;
      return this.postpone(job, token, error);
    }
  }

  /**
   * A delivery that waits out its participant's outage goes on in the same job, its waits its
   * consumer's (outage-patience.ts), not the job's backoff: the attempt it spent is written in the
   * job, which is put back for the wait without spending one of BullMQ's.
   */
  private async waitOut(job: Job, attempt: number, waitMs: number, token?: string): Promise<never> {
    await job.updateData({ ...(job.data as OutboxJob), attempted: attempt - job.attemptsMade });
    return this.leave(job, token, waitMs);
  }

  /** Puts the whole job back, without spending an attempt, after the outage's backoff. */
  private postpone(job: Job, token: string | undefined, error: unknown): Promise<never> {
    const postponed = Math.max(job.attemptsStarted - job.attemptsMade - 1, 0);
    const delayMs = Math.min(this.config.backoffMs * 2 ** Math.min(postponed, 20), OUTAGE_BACKOFF_CAP_MS);
    this.logger.debug(`Job ${job.id} postponed by ${delayMs} ms: ${describeError(error)}`);
    return this.leave(job, token, delayMs);
  }

  /**
   * A job of one delivery: a failure retried by BullMQ with the job's own attempts and backoff. One
   * that stalled since it was last taken (its worker died, or lost it) is a suspect from then on:
   * it runs alone, its run recorded in Postgres (DeliveryRuns), which is where its crashes are
   * found. What the job says of its stalls decides only that it runs alone.
   */
  private async processOne(job: Job<OutboxJob>, named: OutboxJob, token?: string): Promise<void> {
    const subscription = this.subscriptions.consumer(named.consumer);
    const stalled = job.stalledCounter > (named.stallsCounted ?? 0);
    const suspect = subscription !== undefined && (named.alone || stalled);
    if (stalled && subscription) await job.updateData({ ...named, alone: true, stallsCounted: job.stalledCounter });
    const attempt = attemptOf(job, named);
    const next = suspect
      ? await this.turns.inTurn((aloneInProcess) =>
          this.suspect.deliver(job, named, subscription, attempt, aloneInProcess),
        )
      : await this.besideOthers(job, token, () => this.delivery.deliver(job, named, attempt, false));
    if (next.kind === 'retry' && next.waitMs !== undefined) return this.waitOut(job, attempt, next.waitMs, token);
    if (next.kind === 'retry') throw next.error;
    if (next.kind === 'postpone') return this.postpone(job, token, next.error);
    if (next.kind === 'leave') {
      if (next.looks) await job.updateData({ ...(job.data as OutboxJob), looks: next.looks });
      return this.leave(job, token, next.delayMs);
    }
  }

  /**
   * A batch job: its deliveries go to the inbox together (one group commit), and each ends on
   * its own. Those that must go on (a failure to retry, an outage to wait out, a job left for
   * another version) are split out as jobs of one delivery, each with its own attempts and
   * backoff, while their batch-mates are done; a batch whose deliveries all wait out an outage
   * or all are left is put back whole. A batch that stalled (its worker died) is split into
   * deliveries that run alone, none of them counted: the one that kills its worker is then found
   * by its own crashes.
   */
  private async processBatch(job: Job<OutboxJobData>, batch: OutboxBatchJob, token?: string): Promise<void> {
    const { deliveries } = batch;
    if (job.stalledCounter > (batch.stallsCounted ?? 0)) {
      this.logger.warn(
        `Batch job ${job.id} of queue ${job.queueName} stalled (its worker died): its ${deliveries.length} deliveries run again alone`,
      );
      await this.queues.push(
        deliveries.map((delivery) =>
          this.splitOut(job, delivery, { alone: true, attempted: attemptOf(job, delivery) - 1 }),
        ),
      );
      return;
    }
    // Every delivery reaches the inbox in this turn of the event loop: one transaction for them all.
    const nexts = await this.besideOthers(job, token, () =>
      Promise.all(deliveries.map((delivery) => this.delivery.deliver(job, delivery, attemptOf(job, delivery), false))),
    );
    const goOn = nexts.flatMap((next, index) => (next.kind === 'done' ? [] : [{ next, delivery: deliveries[index] }]));
    if (goOn.length === 0) return;
    if (goOn.length === deliveries.length && goOn.every(({ next }) => next.kind === 'postpone')) {
      return this.postpone(job, token, (goOn[0].next as { error: unknown }).error);
    }
    // Left whole for another version; a foreign delivery goes on as a job of its own, counting its looks.
    if (goOn.length === deliveries.length && goOn.every(({ next }) => next.kind === 'leave' && !next.looks)) {
      return this.leave(job, token);
    }
    await this.queues.push(goOn.map(({ next, delivery }) => this.goingOn(job, delivery, next)));
  }

  /** A batch's delivery that goes on, as a job of its own: retried, left, or postponed. */
  private goingOn(job: Job, delivery: OutboxDelivery, next: Next): JobToPush {
    const attempt = attemptOf(job, delivery);
    if (next.kind === 'retry') {
      const delayMs = next.waitMs ?? this.config.backoffMs * 2 ** Math.min(attempt - 1, 20);
      return this.splitOut(job, delivery, { attempted: attempt, type: next.type }, delayMs);
    }
    if (next.kind === 'leave') {
      const { type, looks, delayMs = LEAVE_FOR_OTHERS_MS } = next;
      return this.splitOut(job, delivery, { attempted: attempt - 1, type, looks }, delayMs);
    }
    const type = next.kind === 'postpone' ? next.type : undefined;
    return this.splitOut(job, delivery, { attempted: attempt - 1, type }, this.config.backoffMs);
  }

  /**
   * A delivery of a batch job as a job of its own, under its one-delivery id, going on from the
   * attempts it has spent: its remaining attempts, and a backoff that goes on doubling.
   */
  private splitOut(
    job: Job,
    delivery: OutboxDelivery,
    goOn: { attempted: number; alone?: boolean; type?: string; looks?: number },
    delayMs = 0,
  ): JobToPush {
    const { attempted, alone, type, looks } = goOn;
    const going = { ...delivery, ...(alone ? { alone } : {}), ...(looks ? { looks } : {}) };
    const limit = attemptLimitOf(job, delivery);
    return jobToGoOn(job.queueName, going, { attempted, limit, type }, delayMs, this.config.backoffMs);
  }

  /** Runs beside the deliveries in flight; while a suspect waits or runs, puts the job back instead. */
  private besideOthers<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
    return this.turns.besideOthers(work, () => this.leave(job, token, this.config.backoffMs));
  }

  /**
   * Puts the job back, untouched and without spending an attempt, for another process to take:
   * delayed, so that a process that cannot handle it does not spin on it.
   */
  private async leave(job: Job, token?: string, delayMs = LEAVE_FOR_OTHERS_MS): Promise<never> {
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }
}
