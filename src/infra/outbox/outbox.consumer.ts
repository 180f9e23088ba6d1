import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DelayedError, type Job, Worker } from 'bullmq';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';
import { Hooks } from '../hooks/hooks';
import { RedisConnections } from '../redis/redis.connections';
import { AppRoles } from '../roles/app-roles';
import { ConsumerCatalog } from './consumer-catalog';
import { DeliveryFailures } from './delivery-failures';
import { DeliveryRuns, type RunClaim } from './delivery-runs';
import { Inbox } from './inbox';
import type { OutboxMessage } from './message';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { type ConsumeOutcome, OutboxMetrics } from './outbox.metrics';
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
} from './outbox.queues';
import { QueuePrefix } from './queue-prefix';
import { type Subscription, Subscriptions } from './subscriptions';
import { isUnreachable } from './unreachable';
import { traceProcess } from '../tracing/message.tracing';

/** How long a job that this process cannot handle waits before a process (maybe another) takes it again. */
const LEAVE_FOR_OTHERS_MS = 1_000;

/** How often a job naming a message that the outbox lacks is looked at before it is dropped. */
export const FOREIGN_LOOKS = 5;

/** The label of a consumer that the catalog does not know (a job made it up), in every series. */
const OTHER_CONSUMER = 'other';

type RefusedReason = 'malformed' | 'unrouted' | 'foreign';

/**
 * The longest a suspect waits for the deliveries in flight in its process to end before it runs
 * beside them (see inTurn): a handler that hangs must not stop the process's queues for good.
 */
const SUSPECT_WAITS_AT_MOST_MS = 10_000;

/** The longest a delivery postponed by an outage of Postgres or Redis waits before it is tried again. */
const OUTAGE_BACKOFF_CAP_MS = 10_000;

/**
 * How a delivery goes on after this attempt: done (handled, dead-lettered, refused), retried after
 * a failure, postponed by an outage, or left for another process (another version of the app).
 */
type Next =
  | { kind: 'done' }
  | { kind: 'retry'; error: unknown; type?: string }
  | { kind: 'postpone'; error: unknown; type?: string }
  | { kind: 'leave'; type?: string; delayMs?: number; looks?: number };
const DONE: Next = { kind: 'done' };
const LEAVE = { kind: 'leave' } as const;

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
  private readonly workers: Worker<OutboxJobData>[] = [];
  /** The end of this process's line of deliveries that run alone (see inTurn). */
  private turns: Promise<void> = Promise.resolve();
  /** Deliveries that run alone, in line or running: while there is one, no other starts here. */
  private suspects = 0;
  /** Deliveries of other jobs in flight in this process, of every queue. */
  private inFlight = 0;
  /** Suspects waiting for inFlight to fall to 0. */
  private readonly drained = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly subscriptions: Subscriptions,
    private readonly catalog: ConsumerCatalog,
    private readonly inbox: Inbox,
    private readonly failures: DeliveryFailures,
    private readonly runs: DeliveryRuns,
    private readonly metrics: OutboxMetrics,
    private readonly hooks: Hooks,
    private readonly redis: RedisConnections,
    private readonly roles: AppRoles,
    private readonly connector: DatabaseConnector,
    private readonly queuePrefix: QueuePrefix,
    private readonly queues: OutboxQueues,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /** Runs after Subscriptions has discovered the handlers, which it does in its own onModuleInit. */
  onApplicationBootstrap(): void {
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
    const worker = new Worker<OutboxJobData>(queue, (job, token) => this.process(job, token), {
      connection: this.redis.open(`worker:${queue}`, 'blocking'),
      prefix: this.queuePrefix.of(queue),
      concurrency: this.config.workerConcurrency,
      autorun: false,
      // After losing Redis, look again within a second rather than BullMQ's default 15.
      runRetryDelay: 1_000,
      lockDuration: this.config.jobLockMs,
      stalledInterval: this.config.jobLockMs,
      // A stall is not a crash: crashes are found in Postgres (DeliveryRuns) and dead-lettered by us
      // at OUTBOX_CRASH_LIMIT. BullMQ must not fail a job that stalls, or the sweep would push it afresh.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
    });
    worker.on('error', (error) => this.logger.warn(`worker ${queue}: ${describeError(error)}`));
    this.redis.pulse.follow(`worker:${queue}`, worker.keys.meta, worker);
    this.workers.push(worker);
    void worker.run().catch((error: unknown) => this.logger.error(`worker ${queue} stopped: ${describeError(error)}`));
  }

  /**
   * Handles a job of one delivery, or a batch job of several. Throwing asks BullMQ to retry the
   * job later. A delivery that fails because Postgres or Redis is unreachable is postponed
   * instead, with a backoff that doubles up to OUTAGE_BACKOFF_CAP_MS and without spending an
   * attempt: an outage never dead-letters a message.
   */
  async process(job: Job<OutboxJobData>, token?: string): Promise<void> {
    try {
      const batch = outboxBatchOf(job.data);
      if (batch) return await this.processBatch(job, batch, token);
      const named = outboxJobOf(job.data);
      if (!named) return this.refuse(job, 'malformed', 'its data does not name a message and a consumer');
      return await this.processOne(job as Job<OutboxJob>, named, token);
    } catch (error) {
      if (error instanceof DelayedError || !isUnreachable(error)) throw error;
      return this.postpone(job, token, error);
    }
  }

  /** Puts the whole job back, without spending an attempt, after the outage's backoff. */
  private postpone(job: Job, token: string | undefined, error: unknown): Promise<never> {
    const postponed = Math.max(job.attemptsStarted - job.attemptsMade - 1, 0);
    const delayMs = Math.min(this.config.backoffMs * 2 ** Math.min(postponed, 20), OUTAGE_BACKOFF_CAP_MS);
    this.logger.debug(`Job ${job.id} postponed by ${delayMs} ms: ${describeError(error)}`);
    return this.leave(job, token, delayMs);
  }

  /**
   * A job of one delivery: as it always was, a failure retried by BullMQ with the job's own
   * attempts and backoff. One that stalled since it was last taken (its worker died, or lost it)
   * is a suspect from then on: it runs alone (see inTurn), its run recorded in Postgres
   * (DeliveryRuns), which is where its crashes are found. What the job says of its stalls decides
   * only that it runs alone.
   */
  private async processOne(job: Job<OutboxJob>, named: OutboxJob, token?: string): Promise<void> {
    const subscription = this.subscriptions.consumer(named.consumer);
    const stalled = job.stalledCounter > (named.stallsCounted ?? 0);
    const suspect = subscription !== undefined && (named.alone || stalled);
    if (stalled && subscription) await job.updateData({ ...named, alone: true, stallsCounted: job.stalledCounter });
    const attempt = this.attemptOf(job, named);
    const next = suspect
      ? await this.inTurn((aloneInProcess) => this.deliverSuspect(job, named, subscription, attempt, aloneInProcess))
      : await this.besideOthers(job, token, () => this.deliver(job, named, attempt, false));
    if (next.kind === 'retry') throw next.error;
    if (next.kind === 'postpone') return this.postpone(job, token, next.error);
    if (next.kind === 'leave') {
      if (next.looks) await job.updateData({ ...(job.data as OutboxJob), looks: next.looks });
      return this.leave(job, token, next.delayMs);
    }
  }

  /**
   * A suspect's delivery. With the process to itself, it first claims its run (DeliveryRuns): the
   * runs left by dead processes are charged, and at OUTBOX_CRASH_LIMIT it is dead-lettered instead;
   * while it runs alone in a live process elsewhere (cut from Redis, its job taken from it), it
   * waits, unspent. Beside others (it waited for them in vain), it runs unrecorded: a death then is
   * not its own to be charged with.
   */
  private async deliverSuspect(
    job: Job,
    named: OutboxDelivery,
    subscription: Subscription,
    attempt: number,
    aloneInProcess: boolean,
  ): Promise<Next> {
    if (!aloneInProcess) return this.deliver(job, named, attempt, true);
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
      const next = await this.deliver(job, named, attempt, true, runId);
      committed = true;
      return next;
    } finally {
      if (runId) await this.runs.ended(runId, committed);
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
          this.splitOut(job, delivery, { alone: true, attempted: this.attemptOf(job, delivery) - 1 }),
        ),
      );
      return;
    }
    // Every delivery reaches the inbox in this turn of the event loop: one transaction for them all.
    const nexts = await this.besideOthers(job, token, () =>
      Promise.all(deliveries.map((delivery) => this.deliver(job, delivery, this.attemptOf(job, delivery), false))),
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
    await this.queues.push(
      goOn.map(({ next, delivery }) => {
        const attempt = this.attemptOf(job, delivery);
        if (next.kind === 'retry') {
          const delayMs = this.config.backoffMs * 2 ** Math.min(attempt - 1, 20);
          return this.splitOut(job, delivery, { attempted: attempt, type: next.type }, delayMs);
        }
        if (next.kind === 'leave') {
          const { type, looks, delayMs = LEAVE_FOR_OTHERS_MS } = next;
          return this.splitOut(job, delivery, { attempted: attempt - 1, type, looks }, delayMs);
        }
        return this.splitOut(job, delivery, { attempted: attempt - 1, type: next.type }, this.config.backoffMs);
      }),
    );
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
    const limit = this.attemptLimitOf(job, delivery);
    return jobToGoOn(job.queueName, going, { attempted, limit, type }, delayMs, this.config.backoffMs);
  }

  /** This attempt's number: the attempts spent before the job, and the job's own. */
  private attemptOf(job: Job, delivery: OutboxDelivery): number {
    return (delivery.attempted ?? 0) + job.attemptsMade + 1;
  }

  /** The attempt after which a failing delivery is dead-lettered. */
  private attemptLimitOf(job: Job, delivery: OutboxDelivery): number {
    return (delivery.attempted ?? 0) + Math.max(job.opts.attempts ?? 1, 1);
  }

  /**
   * Runs the deliveries suspected of killing their worker one at a time in this process, each with
   * the process to itself: no delivery of any queue starts while one waits or runs (besideOthers),
   * and it waits for those in flight to end. A death while it runs is then its own, and no
   * delivery of another queue is in hand to be charged beside it. Those waiting their turn are not
   * running, and a crash meanwhile is not counted against them (they recorded no run). One that waited SUSPECT_WAITS_AT_MOST_MS for a handler that does not end runs beside
   * it, `aloneInProcess` false: its death is then not charged to it, and the deliveries in flight
   * are counted as any are at a death, and run alone in turn from then on.
   */
  private inTurn<T>(work: (aloneInProcess: boolean) => Promise<T>): Promise<T> {
    this.suspects += 1;
    const mine = this.turns.then(() => this.othersEnded()).then(work);
    this.turns = mine.then(
      () => undefined,
      () => undefined,
    );
    return mine.finally(() => {
      this.suspects -= 1;
    });
  }

  /** Resolves once no delivery of another job is in flight here (true), or after the bound (false). */
  private othersEnded(): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const ended = () => {
        clearTimeout(timer);
        this.drained.delete(ended);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.drained.delete(ended);
        resolve(false);
      }, SUSPECT_WAITS_AT_MOST_MS);
      this.drained.add(ended);
    });
  }

  /**
   * Runs the deliveries of a job that is not suspect, beside the others in flight. While a suspect
   * waits or runs (inTurn), the job is put back instead, unspent, for a moment (or for another
   * process): started now, it would be in hand if the suspect killed the process, and charged.
   */
  private async besideOthers<T>(job: Job, token: string | undefined, work: () => Promise<T>): Promise<T> {
    if (this.suspects > 0) return this.leave(job, token, this.config.backoffMs);
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) [...this.drained].forEach((ended) => ended());
    }
  }

  /**
   * The job names a message and a consumer, nothing more: the inbox reads the message from the
   * outbox, in the statement that records the delivery, and checks that the consumer takes it.
   * Reaches the inbox without waiting for anything first, so that a batch's deliveries share its
   * transaction. Says how the delivery goes on; an error thrown is the job's, not the delivery's.
   */
  private async deliver(
    job: Job,
    named: OutboxDelivery,
    attempt: number,
    alone: boolean,
    runId?: string,
  ): Promise<Next> {
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
      outcome = await this.failures.judge(named, attempt, this.attemptLimitOf(job, named), error, message);
      if (outcome === 'retried') return { kind: 'retry', error, type: message?.type };
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
  private refuse(job: Job, reason: RefusedReason, why: string): void {
    this.metrics.refused.inc({ queue: job.queueName, reason });
    this.logger.error(`Refused job ${job.id} of queue ${job.queueName}: ${why}; dropped, with no effect`);
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
