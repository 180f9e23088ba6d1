import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type Job, type JobsOptions, Queue, Worker } from 'bullmq';
import { createHash } from 'node:crypto';
import { RedisConnections } from '../redis/redis.connections';
import { traceContextOf } from '../tracing/message.tracing';
import { QueuePrefix } from './queue-prefix';
import { outboxConfig, type OutboxConfig } from './outbox.config';

/**
 * One delivery as a job names it: ids, and the transport's own bookkeeping. Never the message's
 * type, payload or headers: a worker reads those from the outbox (Redis carries ids, Postgres the
 * truth), so a job pushed by whoever can write to the Redis cannot forge a message, and no
 * business data (a buyer's email) is kept in Redis.
 */
export interface OutboxDelivery {
  /** The message's id in the outbox. */
  id: string;
  /** The one consumer it is for. */
  consumer: string;
  /** The W3C trace context of the span that sent it: the parent of the delivery's span, and nothing else. */
  trace?: Record<string, string>;
  /** Attempts spent before this job (in the batch it was split out of): the count goes on from there. */
  attempted?: number;
  /** How often a worker looked for its message in the outbox and did not find it. */
  looks?: number;
}

/**
 * A job of one delivery: what the relay pushes when a batch holds one delivery for a queue, and
 * what a delivery split out of a batch job (to be retried, postponed or left) goes on as.
 */
export interface OutboxJob extends OutboxDelivery {
  /** How many of this job's stalls (its worker died holding it, or lost it) are known. */
  stallsCounted?: number;
  /**
   * Suspected of killing its worker (its job, or the batch it came from, stalled): it runs in its
   * own transaction, one such delivery at a time in a process, its run recorded in Postgres, where
   * its crashes are found (DeliveryRuns). It decides how the delivery runs, never what it is charged.
   */
  alone?: boolean;
}

/** A job of several deliveries of one queue, handed to the inbox together (one group commit). */
export interface OutboxBatchJob {
  deliveries: OutboxDelivery[];
  /** How many of this job's stalls are already dealt with (the batch was split). */
  stallsCounted?: number;
}

export type OutboxJobData = OutboxJob | OutboxBatchJob;

/** The job with this trace context, when there is one (none without a tracing SDK). */
export const withTrace = <T extends OutboxDelivery>(job: T, trace: Record<string, string>): T =>
  Object.keys(trace).length > 0 ? { ...job, trace } : job;

/** A job to push: its queue, its id, and its name (what it holds, for people looking at the queue). */
export interface JobToPush {
  queue: string;
  jobId: string;
  /** Shown by Bull Board; never read by a worker. */
  name: string;
  job: OutboxJobData;
  /** Options of its own (a split-out delivery's delay, attempts and backoff), over the queues' defaults. */
  opts?: Pick<JobsOptions, 'delay' | 'attempts' | 'backoff'>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONSUMER = /^[a-z]+\.[a-z0-9-]+$/;
/** More deliveries than any relay batch makes for a queue: a job holding more is not ours. */
export const MAX_BATCH_JOB = 1_000;

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

function deliveryOf(data: unknown): OutboxDelivery | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { id, consumer, trace, attempted, looks } = data as Record<string, unknown>;
  if (typeof id !== 'string' || !UUID.test(id) || typeof consumer !== 'string' || !CONSUMER.test(consumer)) {
    return undefined;
  }
  const delivery: OutboxDelivery = { id, consumer };
  if (typeof trace === 'object' && trace !== null) delivery.trace = traceContextOf(trace as Record<string, string>);
  if (count(attempted)) delivery.attempted = count(attempted);
  if (count(looks)) delivery.looks = count(looks);
  return delivery;
}

/**
 * The job's data, if it has the shape of a one-delivery OutboxJob (what Redis holds may be
 * anything). A job of the older shape (the whole message) names its message and consumer too:
 * only those are read.
 */
export function outboxJobOf(data: unknown): OutboxJob | undefined {
  const delivery = deliveryOf(data);
  if (!delivery) return undefined;
  const { stallsCounted, alone } = data as Record<string, unknown>;
  const job: OutboxJob = delivery;
  if (count(stallsCounted) !== undefined) job.stallsCounted = count(stallsCounted);
  if (alone === true) job.alone = true;
  return job;
}

/** The job's data, if it has the shape of a batch job, every delivery of it well formed. */
export function outboxBatchOf(data: unknown): OutboxBatchJob | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { deliveries, stallsCounted } = data as Record<string, unknown>;
  if (!Array.isArray(deliveries) || deliveries.length === 0 || deliveries.length > MAX_BATCH_JOB) return undefined;
  const read = deliveries.map(deliveryOf);
  if (read.some((delivery) => !delivery)) return undefined;
  const batch: OutboxBatchJob = { deliveries: read as OutboxDelivery[] };
  if (count(stallsCounted) !== undefined) batch.stallsCounted = count(stallsCounted);
  return batch;
}

/**
 * The same (message, consumer) always makes the same job id, so pushing it again while the job
 * is still in Redis is a no-op; once it is gone, the consumer's inbox absorbs the repeat.
 */
export const jobIdOf = (messageId: string, consumer: string): string => `${messageId}--${consumer}`;

/**
 * A delivery going on as a job of its own, under its one-delivery id, from the attempts it has
 * spent (`attempted`) towards `limit`: its remaining attempts, and a backoff that goes on doubling.
 */
export function jobToGoOn(
  queue: string,
  delivery: OutboxJob,
  goOn: { attempted: number; limit: number; type?: string },
  delayMs: number,
  backoffMs: number,
): JobToPush {
  const { attempted, limit } = goOn;
  return {
    queue,
    jobId: jobIdOf(delivery.id, delivery.consumer),
    name: goOn.type ?? delivery.consumer,
    job: { ...delivery, attempted },
    opts: {
      delay: delayMs,
      attempts: Math.max(limit - attempted, 1),
      backoff: { type: 'exponential', delay: backoffMs * 2 ** Math.min(attempted, 20) },
    },
  };
}

/** A batch's id, from what it holds: the same deliveries pushed again (a relay that died before its commit) are one job. */
export const batchJobIdOf = (deliveries: OutboxDelivery[]): string =>
  `batch--${createHash('sha256')
    .update(deliveries.map(({ id, consumer }) => jobIdOf(id, consumer)).join(' '))
    .digest('hex')
    .slice(0, 32)}`;

/** A delivery to push, and its message's type (for the job's name). */
export interface DeliveryToPush {
  queue: string;
  type: string;
  delivery: OutboxDelivery;
}

/**
 * The jobs that carry these deliveries: per queue, in the order given, one job per `size` of
 * them. A job of one delivery has the one-delivery shape and id (as a redrive's or a retry's);
 * a larger one is a batch job, named by its size and its messages' types for Bull Board.
 */
export function jobsFor(deliveries: DeliveryToPush[], size: number): JobToPush[] {
  const byQueue = new Map<string, DeliveryToPush[]>();
  for (const entry of deliveries) {
    const entries = byQueue.get(entry.queue);
    if (entries) entries.push(entry);
    else byQueue.set(entry.queue, [entry]);
  }
  const jobs: JobToPush[] = [];
  for (const [queue, entries] of byQueue) {
    for (let start = 0; start < entries.length; start += size) {
      const chunk = entries.slice(start, start + size);
      if (chunk.length === 1) {
        const [{ type, delivery }] = chunk;
        jobs.push({ queue, jobId: jobIdOf(delivery.id, delivery.consumer), name: type, job: delivery });
        continue;
      }
      const held = chunk.map((entry) => entry.delivery);
      const types = [...new Set(chunk.map((entry) => entry.type))];
      jobs.push({
        queue,
        jobId: batchJobIdOf(held),
        name: `${held.length} deliveries: ${types.join(', ')}`,
        job: { deliveries: held },
      });
    }
  }
  return jobs;
}

/** One BullMQ queue per consuming module, so that one module's trouble never stalls another's. */
@Injectable()
export class OutboxQueues implements OnApplicationShutdown {
  private readonly logger = new Logger('OutboxQueues');
  private readonly queues = new Map<string, Queue<OutboxJobData>>();
  readonly jobOptions: JobsOptions;

  constructor(
    private readonly redis: RedisConnections,
    private readonly queuePrefix: QueuePrefix,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {
    this.jobOptions = {
      attempts: this.config.attempts,
      backoff: { type: 'exponential', delay: this.config.backoffMs },
      // Postgres keeps the record of what happened (inbox, attempts, dead letters); Redis only
      // carries work, and a finished job's id must be free for a redelivery.
      removeOnComplete: true,
      removeOnFail: true,
    };
  }

  get prefix(): string {
    return this.queuePrefix.value;
  }

  /** Resolves once the prefix is known: derived from the database, it waits for Postgres to answer. */
  get ready(): Promise<string> {
    return this.queuePrefix.known;
  }

  queue(name: string): Queue<OutboxJobData> {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue<OutboxJobData>(name, {
        connection: this.redis.open(`queue:${name}`, 'command'),
        prefix: this.queuePrefix.of(name),
      });
      queue.on('error', (error) => this.logger.debug(`queue ${name}: ${error.message}`));
      this.redis.pulse.follow(`queue:${name}`, queue.keys.meta, queue);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Pushes each queue's jobs in one round trip per queue. */
  async push(jobs: JobToPush[]): Promise<void> {
    await this.queuePrefix.known;
    const byQueue = new Map<string, typeof jobs>();
    for (const entry of jobs) {
      const entries = byQueue.get(entry.queue);
      if (entries) entries.push(entry);
      else byQueue.set(entry.queue, [entry]);
    }
    await Promise.all(
      [...byQueue].map(([name, entries]) =>
        this.queue(name).addBulk(
          entries.map(({ name, job, jobId, opts }) => ({
            name,
            data: job,
            opts: { ...this.jobOptions, ...opts, jobId },
          })),
        ),
      ),
    );
  }

  /** A worker of one queue, not yet running, with its own blocking connection. */
  worker(name: string, process: (job: Job<OutboxJobData>, token?: string) => Promise<void>): Worker<OutboxJobData> {
    const worker = new Worker<OutboxJobData>(name, process, {
      connection: this.redis.open(`worker:${name}`, 'blocking'),
      prefix: this.queuePrefix.of(name),
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
    this.redis.pulse.follow(`worker:${name}`, worker.keys.meta, worker);
    return worker;
  }

  all(): Queue<OutboxJobData>[] {
    return [...this.queues.values()];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.all().map((queue) => queue.close().catch(() => undefined)));
  }
}
