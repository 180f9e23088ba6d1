import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DelayedError, type Job, Worker } from 'bullmq';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../context/message-context';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';
import { crashNow, Faults } from '../faults/faults';
import { CRASH_AFTER_COMMIT } from '../faults/step-faults';
import { RedisConnections } from '../redis/redis.connections';
import { AppRoles } from '../roles/app-roles';
import { ConsumerCatalog } from './consumer-catalog';
import { DeliveryLog } from './delivery-log';
import { Inbox } from './inbox';
import { InvalidPayloadError, parsePayload } from './message';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { type ConsumeOutcome, OutboxMetrics } from './outbox.metrics';
import { PermanentFailure } from './permanent-failure';
import type { OutboxJob } from './outbox.queues';
import { QueuePrefix } from './queue-prefix';
import { Subscriptions } from './subscriptions';
import { isUnreachable } from './unreachable';

/** How long a job that this process cannot handle waits before a process (maybe another) takes it again. */
const LEAVE_FOR_OTHERS_MS = 1_000;

/** The longest a delivery postponed by an outage of Postgres or Redis waits before it is tried again. */
const OUTAGE_BACKOFF_CAP_MS = 10_000;
import { traceProcess } from '../tracing/message.tracing';

/**
 * One BullMQ worker per module queue. Each delivery runs in the context of its message
 * (correlation id; causation id = the message's id) and through the inbox, which makes it take
 * effect once however often it arrives. A failing handler rolls back and is retried with
 * exponential backoff; after the last attempt the delivery is dead-lettered in Postgres, and the
 * queue moves on.
 */
@Injectable()
export class OutboxConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OutboxConsumer');
  private readonly workers: Worker<OutboxJob>[] = [];
  private stopped = false;

  constructor(
    private readonly subscriptions: Subscriptions,
    private readonly catalog: ConsumerCatalog,
    private readonly inbox: Inbox,
    private readonly cls: ClsService<MessageContext>,
    private readonly deliveryLog: DeliveryLog,
    private readonly metrics: OutboxMetrics,
    private readonly faults: Faults,
    private readonly redis: RedisConnections,
    private readonly roles: AppRoles,
    private readonly connector: DatabaseConnector,
    private readonly queuePrefix: QueuePrefix,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /** Runs after Subscriptions has discovered the handlers, which it does in its own onModuleInit. */
  onApplicationBootstrap(): void {
    for (const consumer of this.subscriptions.consumers()) {
      this.faults.declare({ point: `consumer:${consumer}`, actions: ['fail'], description: `${consumer} throws` });
      this.faults.declare({
        point: `consumer:${consumer}:before-commit`,
        actions: ['crash'],
        description: `${consumer}: the process dies after the handler, before the inbox commit`,
      });
    }
    const queues = this.subscriptions.queues((role) => this.roles.has(role));
    if (queues.length === 0) return;
    void this.connector.ready
      .then(() => this.queuePrefix.known)
      .then(() => {
        if (!this.stopped) queues.forEach((queue) => this.startWorker(queue));
      });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    // Lets the jobs in hand finish; the others stay in Redis for the next worker.
    await Promise.all(this.workers.map((worker) => worker.close()));
  }

  private startWorker(queue: string): void {
    const worker = new Worker<OutboxJob>(queue, (job, token) => this.process(job, token), {
      connection: this.redis.open(`worker:${queue}`, 'blocking'),
      prefix: this.queuePrefix.of(queue),
      concurrency: this.config.workerConcurrency,
      autorun: false,
      // After losing Redis, look again within a second rather than BullMQ's default 15.
      runRetryDelay: 1_000,
      lockDuration: this.config.jobLockMs,
      stalledInterval: this.config.jobLockMs,
      // A job that stalls is counted in Postgres and dead-lettered by us at OUTBOX_CRASH_LIMIT
      // (see countCrashes); BullMQ must not fail it first, or the sweep would push it afresh.
      maxStalledCount: this.config.crashLimit,
    });
    worker.on('error', (error) => this.logger.warn(`worker ${queue}: ${describeError(error)}`));
    this.workers.push(worker);
    void worker.run().catch((error: unknown) => this.logger.error(`worker ${queue} stopped: ${describeError(error)}`));
  }

  /**
   * Handles one delivery; throwing asks BullMQ to retry it later. A delivery that fails because
   * Postgres or Redis is unreachable is postponed instead, with a backoff that doubles up to
   * OUTAGE_BACKOFF_CAP_MS and without spending an attempt: an outage never dead-letters a message.
   */
  async process(job: Job<OutboxJob>, token?: string): Promise<void> {
    try {
      await this.deliver(job, token);
    } catch (error) {
      if (error instanceof DelayedError || !isUnreachable(error)) throw error;
      const postponed = Math.max(job.attemptsStarted - job.attemptsMade - 1, 0);
      const delayMs = Math.min(this.config.backoffMs * 2 ** Math.min(postponed, 20), OUTAGE_BACKOFF_CAP_MS);
      this.logger.debug(`${job.data.consumer} postponed ${job.data.type} by ${delayMs} ms: ${describeError(error)}`);
      await this.leave(job, token, delayMs);
    }
  }

  private async deliver(job: Job<OutboxJob>, token?: string): Promise<void> {
    const { payload, ...delivery } = { ...job.data, attempt: job.attemptsMade + 1 };
    const startedAt = Date.now();
    const subscription = this.subscriptions.consumer(delivery.consumer);
    const contract = this.subscriptions.contractOf(delivery.consumer, delivery.type);
    if (!subscription || !contract) {
      this.metrics.observeHandled(delivery.consumer, 'unknown', startedAt);
      // Another version of the app (a rolling deploy) may have this consumer: leave the job to it.
      if (await this.catalog.isAlive(delivery.consumer)) {
        this.logger.warn(`No consumer ${delivery.consumer} for ${delivery.type} here: left for a process that has it`);
        return this.leave(job, token);
      }
      this.logger.warn(`No consumer ${delivery.consumer} for ${delivery.type} in any running version: skipped`);
      return;
    }

    // In the message's context, as a failed delivery is: the dead letter of a delivery that crashed
    // too often is announced to the process it belongs to (its correlation id, its coordination header).
    const context = { correlationId: delivery.correlationId, causationId: delivery.id, headers: delivery.headers };
    if (await this.cls.runWith(context, () => this.countCrashes(job, delivery.attempt))) {
      this.metrics.observeHandled(delivery.consumer, 'dead', startedAt);
      return;
    }

    const trace = traceProcess({ ...delivery, payload }, subscription.queue);
    delivery.headers = trace.headers; // the handler continues the delivery's span
    const outcome = await this.cls.runWith({ ...context, headers: delivery.headers }, async () => {
      let outcome: ConsumeOutcome = 'retried';
      let failure: unknown;
      const faultDecisions = new Map<string, string | undefined>();
      try {
        outcome = await this.inbox.handle({
          delivery,
          payload: parsePayload(contract, payload),
          handle: subscription.handle,
          queue: subscription.queue,
          exclusive: subscription.exclusive,
          dedup: subscription.dedup,
          injectedFault: this.faults.take(`consumer:${delivery.consumer}`) === 'fail',
          crashBeforeCommit: this.faults.take(`consumer:${delivery.consumer}:before-commit`) === 'crash',
          faultDecisions,
        });
        const crashAt = faultDecisions.get(CRASH_AFTER_COMMIT);
        if (crashAt) crashNow(crashAt);
      } catch (error) {
        failure = error;
        if (isUnreachable(error)) {
          outcome = 'postponed';
          throw error;
        }
        outcome = await this.failed(job, delivery.attempt, error);
        if (outcome === 'retried') throw error;
      } finally {
        this.metrics.observeHandled(delivery.consumer, outcome, startedAt, delivery.createdAt);
        trace.end(outcome, failure);
      }
      if (outcome === 'duplicate') {
        await this.deliveryLog.attempt(job.data, delivery.attempt, 'duplicate').catch(() => undefined);
      }
      return outcome;
    });
    if (outcome === 'foreign') {
      this.logger.error(
        `Refused job ${job.id} of queue ${job.queueName}: message ${delivery.id} is not in this deployment's outbox ` +
          `(another deployment shares this Redis and QUEUE_PREFIX?); left in the queue`,
      );
      this.metrics.foreign.inc({ queue: job.queueName });
      return this.leave(job, token);
    }
  }

  /**
   * A job that stalled since it was last taken ended with its worker dead: each such delivery is
   * counted in Postgres, across re-pushes of the message, and at OUTBOX_CRASH_LIMIT the delivery
   * is dead-lettered instead of handled again. Returns whether it was.
   */
  private async countCrashes(job: Job<OutboxJob>, attempt: number): Promise<boolean> {
    const counted = job.data.stallsCounted ?? 0;
    if (job.stalledCounter <= counted) return false;
    const crashes = await this.deliveryLog.crashed(job.data, attempt, job.stalledCounter - counted);
    if (crashes >= this.config.crashLimit) {
      const reason = `crashed the worker ${crashes} times`;
      await this.deliveryLog.deadLetter(job.data, attempt, reason);
      this.logger.error(`Dead letter: ${job.data.type} for ${job.data.consumer}: ${reason}`);
      return true;
    }
    await job.updateData({ ...job.data, stallsCounted: job.stalledCounter });
    return false;
  }

  /**
   * Puts the job back, untouched and without spending an attempt, for another process to take:
   * delayed, so that a process that cannot handle it does not spin on it.
   */
  private async leave(job: Job<OutboxJob>, token?: string, delayMs = LEAVE_FOR_OTHERS_MS): Promise<never> {
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }

  /** Decides between another attempt and a dead letter, and records which. */
  private async failed(job: Job<OutboxJob>, attempt: number, error: unknown): Promise<ConsumeOutcome> {
    const reason = describeError(error);
    const hopeless = error instanceof InvalidPayloadError || error instanceof PermanentFailure;
    if (hopeless || attempt >= Math.max(job.opts.attempts ?? 1, 1)) {
      await this.deliveryLog.deadLetter(job.data, attempt, reason);
      this.logger.error(
        `Dead letter: ${job.data.type} for ${job.data.consumer} after ${attempt} attempt(s): ${reason}`,
      );
      return 'dead';
    }
    await this.deliveryLog.attempt(job.data, attempt, 'failed', reason).catch(() => undefined);
    this.logger.warn(`${job.data.consumer} failed on ${job.data.type} (attempt ${attempt}), will retry: ${reason}`);
    return 'retried';
  }
}
