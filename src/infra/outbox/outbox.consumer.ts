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
import { InvalidPayloadError, type OutboxMessage } from './message';
import type { Takes } from './delivery-log';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { type ConsumeOutcome, OutboxMetrics } from './outbox.metrics';
import { PermanentFailure } from './permanent-failure';
import { type OutboxJob, outboxJobOf } from './outbox.queues';
import { QueuePrefix } from './queue-prefix';
import { Subscriptions } from './subscriptions';
import { isUnreachable } from './unreachable';
import { traceProcess } from '../tracing/message.tracing';

/** How long a job that this process cannot handle waits before a process (maybe another) takes it again. */
const LEAVE_FOR_OTHERS_MS = 1_000;

/** The longest a delivery postponed by an outage of Postgres or Redis waits before it is tried again. */
const OUTAGE_BACKOFF_CAP_MS = 10_000;

/**
 * One BullMQ worker per module queue. A job names a message and a consumer; the message itself
 * is read from the outbox, and a job whose consumer does not take it is refused. Each delivery
 * runs in the context of its message (correlation id; causation id = the message's id) and
 * through the inbox, which makes it take effect once however often it arrives. A failing handler rolls back and is retried with
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
    this.redis.pulse.follow(`worker:${queue}`, worker.keys.meta, worker);
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
      this.logger.debug(`Job ${job.id} postponed by ${delayMs} ms: ${describeError(error)}`);
      await this.leave(job, token, delayMs);
    }
  }

  /**
   * The job names a message and a consumer, nothing more: the inbox reads the message from the
   * outbox, in the statement that records the delivery, and checks that the consumer takes it.
   */
  private async deliver(job: Job<OutboxJob>, token?: string): Promise<void> {
    const startedAt = Date.now();
    const named = outboxJobOf(job.data);
    if (!named) return this.refuse(job, 'malformed', 'its data does not name a message and a consumer');
    const attempt = job.attemptsMade + 1;
    const subscription = this.subscriptions.consumer(named.consumer);
    if (!subscription) {
      this.metrics.observeHandled(named.consumer, 'unknown', startedAt);
      // Another version of the app (a rolling deploy) may have this consumer: leave the job to it.
      if (await this.catalog.isAlive(named.consumer)) {
        this.logger.warn(`No consumer ${named.consumer} here for job ${job.id}: left for a process that has it`);
        return this.leave(job, token);
      }
      this.logger.warn(`No consumer ${named.consumer} in any running version for job ${job.id}: skipped`);
      return;
    }
    const takes = { types: subscription.contracts.map((contract) => contract.type), where: subscription.where };
    if (await this.countCrashes(job, named, takes, attempt)) {
      this.metrics.observeHandled(named.consumer, 'dead', startedAt);
      return;
    }

    const trace = traceProcess({ ...named, attempt }, subscription.queue);
    let message: OutboxMessage | undefined;
    let outcome: ConsumeOutcome = 'retried';
    let failure: unknown;
    try {
      const faultDecisions = new Map<string, string | undefined>();
      const handled = await this.inbox.handle({
        id: named.id,
        consumer: named.consumer,
        attempt,
        subscription,
        injectedFault: this.faults.take(`consumer:${named.consumer}`) === 'fail',
        crashBeforeCommit: this.faults.take(`consumer:${named.consumer}:before-commit`) === 'crash',
        faultDecisions,
        traceContext: trace.context,
        onRead: (read) => {
          message = read;
          return trace.read(read);
        },
      });
      outcome = handled === 'unrouted' ? 'refused' : handled;
      const crashAt = faultDecisions.get(CRASH_AFTER_COMMIT);
      if (crashAt) crashNow(crashAt);
    } catch (error) {
      failure = error;
      if (isUnreachable(error)) {
        outcome = 'postponed';
        throw error;
      }
      outcome = await this.failed(job, named, attempt, error, message);
      if (outcome === 'retried') throw error;
    } finally {
      this.metrics.observeHandled(named.consumer, outcome, startedAt, message?.createdAt);
      trace.end(outcome, failure);
    }
    if (outcome === 'duplicate') {
      await this.deliveryLog.attempt(named, attempt, 'duplicate').catch(() => undefined);
    }
    if (outcome === 'refused' && message) {
      // A newer or older version of this consumer may take this type: leave the job to it.
      if (await this.catalog.takes(named.consumer, message.type, message.headers)) {
        this.logger.warn(
          `${named.consumer} does not take ${message.type} here: job ${job.id} left for a version that does`,
        );
        return this.leave(job, token);
      }
      return this.refuse(job, 'unrouted', `${named.consumer} does not take message ${named.id} (${message.type})`);
    }
    if (outcome === 'foreign') {
      this.logger.error(
        `Refused job ${job.id} of queue ${job.queueName}: message ${named.id} is not in this deployment's outbox ` +
          `(another deployment shares this Redis and QUEUE_PREFIX?); left in the queue`,
      );
      this.metrics.foreign.inc({ queue: job.queueName });
      return this.leave(job, token);
    }
  }

  /**
   * A job that cannot be a delivery of this deployment (malformed, or naming a message for a
   * consumer that does not take it, in any running version): whoever pushed it can write to the
   * Redis, not to the outbox. Counted, logged, and dropped with no effect.
   */
  private refuse(job: Job, reason: 'malformed' | 'unrouted', why: string): void {
    this.metrics.refused.inc({ queue: job.queueName, reason });
    this.logger.error(`Refused job ${job.id} of queue ${job.queueName}: ${why}; dropped, with no effect`);
  }

  /**
   * A job that stalled since it was last taken ended with its worker dead: each such delivery is
   * counted in Postgres, across re-pushes of the message, and at OUTBOX_CRASH_LIMIT the delivery
   * is dead-lettered instead of handled again. Returns whether it was.
   */
  private async countCrashes(job: Job, named: OutboxJob, takes: Takes, attempt: number): Promise<boolean> {
    const counted = named.stallsCounted ?? 0;
    if (job.stalledCounter <= counted) return false;
    const crashes = await this.deliveryLog.crashed(named, takes, attempt, job.stalledCounter - counted);
    if (crashes === undefined) return false; // not a message this consumer takes: the inbox refuses it
    if (crashes >= this.config.crashLimit) {
      const reason = `crashed the worker ${crashes} times`;
      const type = await this.deliveryLog.deadLetter(named, attempt, reason);
      this.logger.error(`Dead letter: ${type} (message ${named.id}) for ${named.consumer}: ${reason}`);
      return true;
    }
    await job.updateData({ ...named, stallsCounted: job.stalledCounter });
    return false;
  }

  /**
   * Puts the job back, untouched and without spending an attempt, for another process to take:
   * delayed, so that a process that cannot handle it does not spin on it.
   */
  private async leave(job: Job, token?: string, delayMs = LEAVE_FOR_OTHERS_MS): Promise<never> {
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }

  /** Decides between another attempt and a dead letter, and records which. */
  private async failed(
    job: Job,
    named: OutboxJob,
    attempt: number,
    error: unknown,
    message?: OutboxMessage,
  ): Promise<ConsumeOutcome> {
    const reason = describeError(error);
    const what = `${message?.type ?? 'message'} ${named.id}`;
    const hopeless = error instanceof InvalidPayloadError || error instanceof PermanentFailure;
    if (hopeless || attempt >= Math.max(job.opts.attempts ?? 1, 1)) {
      await this.deliveryLog.deadLetter(named, attempt, reason);
      this.inContextOf(message, () =>
        this.logger.error(`Dead letter: ${what} for ${named.consumer} after ${attempt} attempt(s): ${reason}`),
      );
      return 'dead';
    }
    await this.deliveryLog.attempt(named, attempt, 'failed', reason).catch(() => undefined);
    this.inContextOf(message, () =>
      this.logger.warn(`${named.consumer} failed on ${what} (attempt ${attempt}), will retry: ${reason}`),
    );
    return 'retried';
  }

  /** Log lines about a delivery carry its message's correlation id, once the message is read. */
  private inContextOf(message: OutboxMessage | undefined, log: () => void): void {
    if (!message) return log();
    this.cls.runWith({ correlationId: message.correlationId, causationId: message.id, headers: message.headers }, log);
  }
}
