import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../../../config/database.config';
import { DatabaseConnector } from '../../database/database.connector';
import { PgListener } from '../../database/pg-listener';
import { Hooks } from '../../hooks/hooks';
import { AppRoles } from '../../roles/app-roles';
import type { PeriodicTask } from '../../scheduling/periodic-task';
import { PeriodicTasks } from '../../scheduling/periodic-tasks';
import { MESSAGE_COLUMNS, type MessageRow, toMessage } from '../message-row';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { OutboxMetrics } from '../outbox.metrics';
import { type DeliveryToPush, jobsFor, OutboxQueues, withTrace } from '../outbox.queues';
import { ConsumerCatalog, routesOf } from '../consuming/consumer-catalog';
import { isTimeout } from '../../database/timeouts';
import { traceRelayBatch } from '../../tracing/message.tracing';

/** The channel on which relays hear that there is something to relay. */
export const OUTBOX_CHANNEL = 'outbox_messages';

/**
 * Moves committed outbox rows to the module queues. Each batch is claimed and marked published
 * in one statement, with FOR UPDATE SKIP LOCKED, so relays on several replicas take different rows
 * and never wait for each other; it is routed by the consumer catalog (every running version's
 * consumers, as read within the last second), pushed, and committed. Dying between push and
 * commit only means the batch is pushed again: deterministic job ids and the consumers' inbox
 * absorb that. Only published: whether a message is delivered is for the sweep to judge, by the
 * catalog as it is then (a message that no consumer takes now may be one for a consumer that a
 * newer version, starting at this moment, is registering). Woken after each commit that wrote to
 * the outbox (in this process directly, from others by NOTIFY), and by a timer in case a signal
 * is missed.
 *
 * With OUTBOX_RELAY=logical it does not poll: the logical relay reads the inserts from the WAL and
 * hands the rows to `pushRows` (the same routing and jobs), and uses `relayBatch` once, when it
 * becomes the reader, for rows written before its slot existed (ADR 0079).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** Only with OUTBOX_RELAY=polling. */
  private readonly task?: PeriodicTask;
  private listener?: PgListener;

  constructor(
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
    private readonly queues: OutboxQueues,
    private readonly catalog: ConsumerCatalog,
    private readonly metrics: OutboxMetrics,
    private readonly hooks: Hooks,
    private readonly roles: AppRoles,
    tasks: PeriodicTasks,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
  ) {
    // A batch that fails stays unpublished; the task tries again at its next tick.
    if (config.relay === 'polling') {
      this.task = tasks.register('outbox-relay', 'relay', config.relayIntervalMs, () => this.drain(), {
        runAtStart: true,
      });
    }
  }

  /** Other processes' commits reach this relay by NOTIFY. */
  onApplicationBootstrap(): void {
    if (!this.roles.has('relay') || !this.task) return;
    void this.connector.ready.then(() => {
      if (this.task?.isStopped) return;
      this.listener = new PgListener(this.database.directUrl, OUTBOX_CHANNEL, () => this.wake());
      this.listener.start();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
  }

  /** Whether this process relays (APP_ROLES has `relay`) and has started to. */
  get active(): boolean {
    return this.task?.isActive ?? false;
  }

  /** Relays everything pending now; a wake-up during a drain makes it go round once more. */
  wake(): void {
    this.task?.wake();
  }

  /** Relays every unpublished row, batch after batch, until none is left or `stopped` says so. */
  async drain(stopped = () => this.task?.isStopped ?? false, olderThanMs?: number): Promise<void> {
    while (!stopped() && (await this.relayBatch(olderThanMs)) === this.config.relayBatchSize);
  }

  /**
   * Claims and marks one batch in one statement, then pushes it, in one transaction: a push that
   * fails (or a process that dies) before the commit leaves the batch unpublished. Returns how many
   * messages it relayed.
   */
  relayBatch(olderThanMs?: number): Promise<number> {
    // Only rows written at least this long ago, when asked: the logical relay's net for late ones.
    const old =
      olderThanMs === undefined ? '' : `AND created_at < clock_timestamp() - interval '${Math.floor(olderThanMs)} ms'`;
    return this.dataSource
      .transaction(async (tx) => {
        const rows = await tx.query<MessageRow[]>(
          `WITH claimed AS (
             SELECT id AS claimed_id FROM outbox.messages
              WHERE published_at IS NULL ${old}
              ORDER BY created_at
              LIMIT $1
              FOR UPDATE SKIP LOCKED),
           marked AS (
             UPDATE outbox.messages m SET published_at = clock_timestamp()
               FROM claimed WHERE m.id = claimed.claimed_id
             RETURNING ${MESSAGE_COLUMNS})
           SELECT * FROM marked ORDER BY created_at`,
          [this.config.relayBatchSize],
        );
        if (rows.length === 0) return 0;

        await this.pushRows(rows);

        // Marked already, in this transaction: failing here rolls the mark back.
        await this.hooks.pushed();
        return rows.length;
      })
      .catch((error: unknown) => {
        if (isTimeout(error)) this.metrics.timeouts.inc({ stage: 'relay' });
        throw error;
      });
  }

  /**
   * Routes these rows by the consumer catalog and pushes their jobs: one job per queue (per
   * OUTBOX_CONSUMER_BATCH_SIZE deliveries), whose deliveries share a group commit. Both relays push
   * through here.
   */
  async pushRows(rows: MessageRow[]): Promise<void> {
    const routes = await this.catalog.recentRoutes();
    const messages = rows.map(toMessage);
    const tracing = traceRelayBatch(messages);
    const deliveries = messages.flatMap((message): DeliveryToPush[] => {
      const subscriptions = routesOf(routes, message.type, message.headers);
      if (subscriptions.length === 0) this.metrics.unrouted.inc({ type: message.type });
      return subscriptions.map(({ queue, consumer }) => ({
        queue,
        type: message.type,
        delivery: withTrace({ id: message.id, consumer }, tracing.send(message, queue, consumer)),
      }));
    });
    // One job per queue (per OUTBOX_CONSUMER_BATCH_SIZE deliveries): its deliveries share a group commit.
    const jobs = this.hooks.pushing(jobsFor(deliveries, this.config.consumerBatchSize), (job) => ({
      ...job,
      jobId: `${job.jobId}--copy`,
    }));
    await tracing.push(() => this.queues.push(jobs));
    for (const { queue, job } of jobs)
      this.metrics.relayed.inc({ queue }, 'deliveries' in job ? job.deliveries.length : 1);
  }
}
