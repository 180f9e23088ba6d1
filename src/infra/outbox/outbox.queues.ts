import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type JobsOptions, Queue } from 'bullmq';
import { RedisConnections } from '../redis/redis.connections';
import type { OutboxMessage } from './message';
import { QueuePrefix } from './queue-prefix';
import { outboxConfig, type OutboxConfig } from './outbox.config';

/** What a job carries: the whole message, and the one consumer it is for. */
export interface OutboxJob extends OutboxMessage {
  consumer: string;
  /** How many of this job's stalls (its worker died holding it) are already counted in Postgres. */
  stallsCounted?: number;
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
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Pushes each queue's jobs in one round trip per queue. */
  async push(jobs: Array<{ queue: string; job: OutboxJob; jobId: string }>): Promise<void> {
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
          entries.map(({ job, jobId }) => ({ name: job.type, data: job, opts: { ...this.jobOptions, jobId } })),
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
