import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Worker } from 'bullmq';
import { DatabaseConnector } from '../../database/database.connector';
import { describeError } from '../../errors';
import { AppRoles } from '../../roles/app-roles';
import { OutboxJobs } from './outbox-jobs';
import { type OutboxJobData, OutboxQueues } from '../outbox.queues';
import { Subscriptions } from './subscriptions';

/**
 * One BullMQ worker per module queue that this process's roles consume. A job names a message and
 * a consumer; the message itself is read from the outbox, and a job whose consumer does not take it
 * is refused (JobDelivery). Each delivery runs in the context of its message (correlation id;
 * causation id = the message's id) and through the inbox, which makes it take effect once however
 * often it arrives. A failing handler rolls back and is retried with exponential backoff; after the
 * last attempt the delivery is dead-lettered in Postgres, and the queue moves on (OutboxJobs).
 */
@Injectable()
export class OutboxConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OutboxConsumer');
  private readonly workers: Worker<OutboxJobData>[] = [];
  private stopped = false;

  constructor(
    private readonly jobs: OutboxJobs,
    private readonly subscriptions: Subscriptions,
    private readonly roles: AppRoles,
    private readonly connector: DatabaseConnector,
    private readonly queues: OutboxQueues,
  ) {}

  /** Runs after Subscriptions has discovered the handlers, which it does in its own onModuleInit. */
  onApplicationBootstrap(): void {
    const queues = this.subscriptions.queues((role) => this.roles.has(role));
    if (queues.length === 0) return;
    void this.connector.ready
      .then(() => this.queues.ready)
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
    const worker = this.queues.worker(queue, (job, token) => this.jobs.process(job, token));
    worker.on('error', (error) => this.logger.warn(`worker ${queue}: ${describeError(error)}`));
    this.workers.push(worker);
    void worker.run().catch((error: unknown) => this.logger.error(`worker ${queue} stopped: ${describeError(error)}`));
  }
}
