import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type JobsOptions, Queue } from 'bullmq';
import { RedisConnections } from '../redis/redis.connections';
import { traceContextOf } from '../tracing/message.tracing';
import { QueuePrefix } from './queue-prefix';
import { outboxConfig, type OutboxConfig } from './outbox.config';

/**
 * What a job carries: ids, and the transport's own bookkeeping. Never the message's type,
 * payload or headers: a worker reads those from the outbox (Redis carries ids, Postgres the
 * truth), so a job pushed by whoever can write to the Redis cannot forge a message, and no
 * business data (a buyer's email) is kept in Redis.
 */
export interface OutboxJob {
  /** The message's id in the outbox. */
  id: string;
  /** The one consumer it is for. */
  consumer: string;
  /** How many of this job's stalls (its worker died holding it) are already counted in Postgres. */
  stallsCounted?: number;
  /** The W3C trace context of the span that sent it: the parent of the delivery's span, and nothing else. */
  trace?: Record<string, string>;
}

/** The job with this trace context, when there is one (none without a tracing SDK). */
export const withTrace = (job: OutboxJob, trace: Record<string, string>): OutboxJob =>
  Object.keys(trace).length > 0 ? { ...job, trace } : job;

/** A job to push: its queue, its id, and its name (the message's type, for people looking at the queue). */
export interface JobToPush {
  queue: string;
  jobId: string;
  /** Shown by Bull Board; never read by a worker. */
  name: string;
  job: OutboxJob;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONSUMER = /^[a-z]+\.[a-z0-9-]+$/;

/**
 * The job's data, if it has the shape of an OutboxJob (what Redis holds may be anything). A job
 * of the older shape (the whole message) names its message and consumer too: only those are read.
 */
export function outboxJobOf(data: unknown): OutboxJob | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { id, consumer, stallsCounted, trace } = data as Record<string, unknown>;
  if (typeof id !== 'string' || !UUID.test(id) || typeof consumer !== 'string' || !CONSUMER.test(consumer)) {
    return undefined;
  }
  const job: OutboxJob = { id, consumer };
  if (typeof stallsCounted === 'number' && Number.isInteger(stallsCounted) && stallsCounted >= 0) {
    job.stallsCounted = stallsCounted;
  }
  if (typeof trace === 'object' && trace !== null) job.trace = traceContextOf(trace as Record<string, string>);
  return job;
}

/**
 * The same (message, consumer) always makes the same job id, so pushing it again while the job
 * is still in Redis is a no-op; once it is gone, the consumer's inbox absorbs the repeat.
 */
export const jobIdOf = (messageId: string, consumer: string): string => `${messageId}--${consumer}`;

/** One BullMQ queue per consuming module, so that one module's trouble never stalls another's. */
@Injectable()
export class OutboxQueues implements OnApplicationShutdown {
  private readonly logger = new Logger('OutboxQueues');
  private readonly queues = new Map<string, Queue<OutboxJob>>();
  readonly jobOptions: JobsOptions;

  constructor(
    private readonly redis: RedisConnections,
    private readonly queuePrefix: QueuePrefix,
    @Inject(outboxConfig.KEY) config: OutboxConfig,
  ) {
    this.jobOptions = {
      attempts: config.attempts,
      backoff: { type: 'exponential', delay: config.backoffMs },
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

  queue(name: string): Queue<OutboxJob> {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue<OutboxJob>(name, {
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
          entries.map(({ name, job, jobId }) => ({ name, data: job, opts: { ...this.jobOptions, jobId } })),
        ),
      ),
    );
  }

  all(): Queue<OutboxJob>[] {
    return [...this.queues.values()];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.all().map((queue) => queue.close().catch(() => undefined)));
  }
}
