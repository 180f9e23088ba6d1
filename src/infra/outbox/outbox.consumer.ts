import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { type Job, Worker } from 'bullmq';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../context/message-context';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';
import { Faults } from '../faults/faults';
import { RedisConnections } from '../redis/redis.connections';
import { AppRoles } from '../roles/app-roles';
import { DeliveryLog } from './delivery-log';
import { InvalidPayloadError, parsePayload } from './message';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { type ConsumeOutcome, OutboxMetrics } from './outbox.metrics';
import type { OutboxJob } from './outbox.queues';
import { type Subscription, Subscriptions } from './subscriptions';

/** The delivery was already handled by this consumer: nothing was done again. */
const DUPLICATE = Symbol('duplicate');

/**
 * One BullMQ worker per module queue. Each delivery runs in the context of its message
 * (correlation id; causation id = the message's id) and in one transaction that first records
 * (message, consumer) in the inbox: a repeated delivery finds the row and does nothing, and the
 * handler's writes and the messages it publishes commit together with that row. A failing
 * handler rolls back and is retried with exponential backoff; after the last attempt the
 * delivery is dead-lettered in Postgres, and the queue moves on.
 */
@Injectable()
export class OutboxConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OutboxConsumer');
  private readonly workers: Worker<OutboxJob>[] = [];
  private stopped = false;

  constructor(
    private readonly subscriptions: Subscriptions,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly deliveryLog: DeliveryLog,
    private readonly metrics: OutboxMetrics,
    private readonly faults: Faults,
    private readonly redis: RedisConnections,
    private readonly roles: AppRoles,
    private readonly connector: DatabaseConnector,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /** Runs after Subscriptions has discovered the handlers, which it does in its own onModuleInit. */
  onApplicationBootstrap(): void {
    for (const consumer of this.subscriptions.consumers()) {
      this.faults.declare({ point: `consumer:${consumer}`, actions: ['fail'], description: `${consumer} throws` });
    }
    if (!this.roles.has('worker')) return;
    void this.connector.ready.then(() => {
      if (!this.stopped) this.subscriptions.queues().forEach((queue) => this.startWorker(queue));
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    // Lets the jobs in hand finish; the others stay in Redis for the next worker.
    await Promise.all(this.workers.map((worker) => worker.close()));
  }

  private startWorker(queue: string): void {
    const worker = new Worker<OutboxJob>(queue, (job) => this.process(job), {
      connection: this.redis.open(`worker:${queue}`, 'blocking'),
      prefix: this.redis.prefix,
      concurrency: this.config.workerConcurrency,
      autorun: false,
      // After losing Redis, look again within a second rather than BullMQ's default 15.
      runRetryDelay: 1_000,
    });
    worker.on('error', (error) => this.logger.warn(`worker ${queue}: ${describeError(error)}`));
    this.workers.push(worker);
    void worker.run().catch((error: unknown) => this.logger.error(`worker ${queue} stopped: ${describeError(error)}`));
  }

  /** Handles one delivery; throwing asks BullMQ to retry it later. */
  async process(job: Job<OutboxJob>): Promise<void> {
    const message = job.data;
    const attempt = job.attemptsMade + 1;
    const startedAt = Date.now();
    const subscription = this.subscriptions.consumer(message.consumer);
    if (!subscription || subscription.contract.type !== message.type) {
      this.logger.warn(`No consumer ${message.consumer} for ${message.type}: skipped`);
      this.metrics.observeHandled(message.consumer, 'unknown', startedAt);
      return;
    }

    await this.cls.runWith({ correlationId: message.correlationId, causationId: message.id }, async () => {
      let outcome: ConsumeOutcome = 'retried';
      try {
        outcome = (await this.handle(subscription, job, attempt)) === DUPLICATE ? 'duplicate' : 'ok';
      } catch (error) {
        outcome = await this.failed(job, attempt, error);
        if (outcome === 'retried') throw error;
      } finally {
        this.metrics.observeHandled(message.consumer, outcome, startedAt, message.createdAt);
      }
      if (outcome === 'duplicate') {
        await this.deliveryLog.attempt(message, attempt, 'duplicate').catch(() => undefined);
      }
    });
  }

  private handle(subscription: Subscription, job: Job<OutboxJob>, attempt: number) {
    const { payload, consumer, ...message } = job.data;
    const contractPayload = parsePayload(subscription.contract, payload);
    return this.txHost.withTransaction(async () => {
      const [recorded] = await this.txHost.tx.query<unknown[]>(
        `INSERT INTO outbox.inbox (message_id, consumer, correlation_id, attempt)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING
         RETURNING 1`,
        [message.id, consumer, message.correlationId, attempt],
      );
      if (!recorded) return DUPLICATE;
      this.faults.failIfInjected(`consumer:${consumer}`);
      await subscription.handle(contractPayload, { ...message, consumer, attempt });
      return undefined;
    });
  }

  /** Decides between another attempt and a dead letter, and records which. */
  private async failed(job: Job<OutboxJob>, attempt: number, error: unknown): Promise<ConsumeOutcome> {
    const reason = describeError(error);
    const hopeless = error instanceof InvalidPayloadError;
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
