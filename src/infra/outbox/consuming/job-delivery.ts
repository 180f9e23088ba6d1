import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { Hooks } from '../../hooks/hooks';
import { traceProcess } from '../../tracing/message.tracing';
import { ConsumerCatalog } from './consumer-catalog';
import { DeliveryFailures } from './delivery-failures';
import { Inbox } from './inbox';
import type { OutboxMessage } from '../message';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { type ConsumeOutcome, OutboxMetrics } from '../outbox.metrics';
import { outagePatienceOf } from './outage-patience';
import type { OutboxDelivery } from '../outbox.queues';
import { Subscriptions } from './subscriptions';
import { isUnreachable } from '../unreachable';

/** How long a job that this process cannot handle waits before a process (maybe another) takes it again. */
export const LEAVE_FOR_OTHERS_MS = 1_000;

/** How often a job naming a message that the outbox lacks is looked at before it is dropped. */
export const FOREIGN_LOOKS = 5;

/** The label of a consumer that the catalog does not know (a job made it up), in every series. */
const OTHER_CONSUMER = 'other';

type RefusedReason = 'malformed' | 'unrouted' | 'foreign';

/**
 * How a delivery goes on after this attempt: done (handled, dead-lettered, refused), retried after
 * a failure, postponed by an outage, or left for another process (another version of the app).
 */
export type Next =
  | { kind: 'done' }
  | { kind: 'retry'; error: unknown; type?: string; waitMs?: number }
  | { kind: 'postpone'; error: unknown; type?: string }
  | { kind: 'leave'; type?: string; delayMs?: number; looks?: number };
export const DONE: Next = { kind: 'done' };
const LEAVE = { kind: 'leave' } as const;

/** This attempt's number: the attempts spent before the job, and the job's own. */
export const attemptOf = (job: Job, delivery: OutboxDelivery): number =>
  (delivery.attempted ?? 0) + job.attemptsMade + 1;

/** The attempt after which a failing delivery is dead-lettered. */
export const attemptLimitOf = (job: Job, delivery: OutboxDelivery): number =>
  (delivery.attempted ?? 0) + Math.max(job.opts.attempts ?? 1, 1);

/**
 * One delivery that a job names, through the inbox: the job names a message and a consumer,
 * nothing more, and whatever else it says is not believed. A consumer this process lacks, a type
 * it does not take and a message the outbox does not hold are left for another version of the app
 * while one may have them, then refused.
 */
@Injectable()
export class JobDelivery {
  private readonly logger = new Logger('OutboxConsumer');

  constructor(
    private readonly subscriptions: Subscriptions,
    private readonly catalog: ConsumerCatalog,
    private readonly inbox: Inbox,
    private readonly failures: DeliveryFailures,
    private readonly metrics: OutboxMetrics,
    private readonly hooks: Hooks,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /**
   * The inbox reads the message from the outbox, in the statement that records the delivery, and
   * checks that the consumer takes it. Reaches the inbox without waiting for anything first, so
   * that a batch's deliveries share its transaction. Says how the delivery goes on; an error thrown
   * is the job's, not the delivery's.
   */
  async deliver(job: Job, named: OutboxDelivery, attempt: number, alone: boolean, runId?: string): Promise<Next> {
    const startedAt = Date.now();
    const subscription = this.subscriptions.consumer(named.consumer);
    if (!subscription) {
      // Another version of the app (a rolling deploy) may have this consumer: leave the job to it.
      const alive = await this.catalog.isAlive(named.consumer);
      // A series is labelled only with a consumer of the catalog: a name that a job made up is `other`.
      this.metrics.observeHandled(alive ? named.consumer : OTHER_CONSUMER, 'unknown', startedAt);
      if (alive) {
        this.logger.warn(`No consumer ${named.consumer} here for job ${job.id}: left for a process that has it`);
        return { ...LEAVE };
      }
      this.refuse(job, 'unrouted', `no running version has a consumer ${named.consumer}`);
      return DONE;
    }

    const trace = traceProcess({ ...named, attempt }, subscription.queue, job.id);
    let message: OutboxMessage | undefined;
    let outcome: ConsumeOutcome = 'retried';
    let failure: unknown;
    try {
      const hooks = this.hooks.delivery(named.consumer);
      const handled = await this.inbox.handle({
        id: named.id,
        consumer: named.consumer,
        attempt,
        subscription,
        alone,
        runId,
        hooks,
        traceContext: trace.context,
        onRead: (read) => {
          message = read;
          return trace.read(read);
        },
      });
      outcome = handled === 'unrouted' ? 'refused' : handled;
      hooks.afterCommit();
    } catch (error) {
      failure = error;
      if (isUnreachable(error)) {
        outcome = 'postponed';
        return { kind: 'postpone', error, type: message?.type };
      }
      const patience = outagePatienceOf(this.config, subscription);
      const limit = patience?.attempts ?? attemptLimitOf(job, named);
      outcome = await this.failures.judge(named, attempt, limit, error, message);
      if (outcome === 'retried')
        return { kind: 'retry', error, type: message?.type, waitMs: patience?.waitAfter(attempt) };
      return DONE;
    } finally {
      this.metrics.observeHandled(named.consumer, outcome, startedAt, message?.createdAt);
      trace.end(outcome, failure);
    }
    if (outcome === 'duplicate') {
      await this.failures.noteDuplicate(named, attempt);
    }
    if (outcome === 'refused' && message) {
      // A newer or older version of this consumer may take this type: leave the job to it.
      if (await this.catalog.takes(named.consumer, message.type, message.headers)) {
        this.logger.warn(
          `${named.consumer} does not take ${message.type} here: job ${job.id} left for a version that does`,
        );
        return { ...LEAVE, type: message.type };
      }
      this.refuse(job, 'unrouted', `${named.consumer} does not take message ${named.id} (${message.type})`);
      return DONE;
    }
    if (outcome === 'foreign') return this.foreign(job, named);
    return DONE;
  }

  /**
   * A job naming a message that this deployment's outbox does not hold: another deployment's, on a
   * Redis and QUEUE_PREFIX shared by mistake (its workers may take it meanwhile), or one whose row
   * is gone for good (a failover to a standby that lagged, a restore, a forged id). Looked at again
   * FOREIGN_LOOKS times, each wait twice the last, then dropped, counted as refused.
   */
  private foreign(job: Job, named: OutboxDelivery): Next {
    this.metrics.foreign.inc({ queue: job.queueName });
    const looks = (named.looks ?? 0) + 1;
    const why = `message ${named.id} is not in this deployment's outbox (another deployment shares this Redis and QUEUE_PREFIX?)`;
    if (looks >= FOREIGN_LOOKS) {
      this.refuse(job, 'foreign', `${why}, ${looks} looks`);
      return DONE;
    }
    const delayMs = LEAVE_FOR_OTHERS_MS * 2 ** (looks - 1);
    this.logger.error(`Job ${job.id} of queue ${job.queueName}: ${why}; looked ${looks} times, again in ${delayMs} ms`);
    return { kind: 'leave', looks, delayMs };
  }

  /**
   * A job that cannot be a delivery of this deployment (malformed, naming a message for a consumer
   * that does not take it in any running version, or a message the outbox does not hold): whoever
   * pushed it can write to the Redis, not to the outbox. Counted, logged, and dropped with no effect.
   */
  refuse(job: Job, reason: RefusedReason, why: string): void {
    this.metrics.refused.inc({ queue: job.queueName, reason });
    this.logger.error(`Refused job ${job.id} of queue ${job.queueName}: ${why}; dropped, with no effect`);
  }
}
