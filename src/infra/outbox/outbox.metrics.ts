import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../../config/database.config';
import { describeError } from '../errors';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { OutboxQueues } from './outbox.queues';
import { slotNameFor } from './relaying/replication-slot';
import { registerSlotGauges } from './relaying/slot.metrics';
import { Subscriptions } from './consuming/subscriptions';

export type ConsumeOutcome = 'ok' | 'duplicate' | 'retried' | 'postponed' | 'dead' | 'unknown' | 'foreign' | 'refused';

const seconds = (ms: number) => ms / 1_000;

/** What the transport counts, and the gauges it reads from Postgres and Redis for the scrapes. */
@Injectable()
export class OutboxMetrics {
  private readonly logger = new Logger('OutboxMetrics');
  readonly relayed: Counter<'queue'>;
  readonly redelivered: Counter<'consumer'>;
  readonly slotRelayed: Counter;
  readonly unrouted: Counter<'type'>;
  readonly consumed: Counter<'consumer' | 'outcome'>;
  readonly foreign: Counter<'queue'>;
  readonly refused: Counter<'queue' | 'reason'>;
  readonly timeouts: Counter<'stage'>;
  readonly handlerDuration: Histogram<'consumer'>;
  readonly deliveryDelay: Histogram<'consumer'>;

  constructor(
    private readonly registry: MetricsRegistry,
    private readonly dataSource: DataSource,
    private readonly queues: OutboxQueues,
    private readonly subscriptions: Subscriptions,
    @Inject(outboxConfig.KEY) outbox: OutboxConfig,
    @Inject(databaseConfig.KEY) database: DatabaseConfig,
  ) {
    const registers = [registry];
    this.relayed = new Counter({
      name: 'outbox_relayed_jobs_total',
      help: 'Jobs pushed to a queue by the relay (a message fans out to one job per consumer)',
      labelNames: ['queue'],
      registers,
    });
    this.redelivered = new Counter({
      name: 'outbox_redelivered_jobs_total',
      help: 'Jobs pushed again by the sweep because a consumer had not handled them in time',
      labelNames: ['consumer'],
      registers,
    });
    this.slotRelayed = new Counter({
      name: 'outbox_slot_relayed_messages_total',
      help: 'Messages the logical relay read from its replication slot and relayed (or found relayed already: read again after a crash, or claimed when its reader started)',
      registers,
    });
    this.unrouted = new Counter({
      name: 'outbox_unrouted_messages_total',
      help: 'Messages relayed that no consumer subscribes to',
      labelNames: ['type'],
      registers,
    });
    this.consumed = new Counter({
      name: 'outbox_consumed_total',
      help: 'Deliveries handled, by consumer and outcome (ok, duplicate, retried, postponed, dead, unknown, foreign, refused)',
      labelNames: ['consumer', 'outcome'],
      registers,
    });
    this.foreign = new Counter({
      name: 'outbox_foreign_jobs_total',
      help: "Jobs refused because their message is not in this deployment's outbox (another deployment's job)",
      labelNames: ['queue'],
      registers,
    });
    this.refused = new Counter({
      name: 'outbox_refused_jobs_total',
      help: 'Jobs dropped with no effect because they cannot be a delivery (malformed), or name a message for a consumer that does not take it in any running version (unrouted): forged, or pushed by hand',
      labelNames: ['queue', 'reason'],
      registers,
    });
    this.timeouts = new Counter({
      name: 'outbox_transaction_timeouts_total',
      help: 'Transport transactions that Postgres stopped at DATABASE_LOCK_TIMEOUT_MS or DATABASE_STATEMENT_TIMEOUT_MS, by stage (relay, sweep, consumer)',
      labelNames: ['stage'],
      registers,
    });
    this.handlerDuration = new Histogram({
      name: 'outbox_handler_duration_seconds',
      help: 'Time a delivery spent in its consumer, transaction included',
      labelNames: ['consumer'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.deliveryDelay = new Histogram({
      name: 'outbox_delivery_delay_seconds',
      help: 'From the message being written to a consumer handling it',
      labelNames: ['consumer'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });

    // Each figure read from Postgres or Redis at most once every METRICS_READ_INTERVAL_MS, shared
    // by every scrape and by the gauges that show it; the Postgres ones through partial indexes
    // (unpublished messages, open dead letters): constant cost whatever the tables hold (ADR 0078).
    const pending = registry.reading('outbox_pending', async () => {
      const [row] = await this.dataSource.query<Array<{ count: number; age: number | null }>>(
        `SELECT count(*)::int AS count, extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS age
           FROM outbox.messages WHERE published_at IS NULL`,
      );
      return { count: row.count, oldestAgeSeconds: row.age ?? 0 };
    });
    const dead = registry.reading('outbox_dead_letters', () =>
      this.dataSource.query<Array<{ consumer: string; count: number }>>(
        `SELECT consumer, count(*)::int AS count FROM outbox.dead_letters WHERE status = 'dead' GROUP BY consumer`,
      ),
    );
    const queued = registry.reading('queues', () => this.queueFigures());

    const pendingCount: Gauge = new Gauge({
      name: 'outbox_pending_messages',
      help: 'Messages written but not yet pushed to a queue',
      registers,
      collect: async () => {
        const stats = await pending.get();
        if (stats) pendingCount.set(stats.count);
      },
    });
    const oldestPending: Gauge = new Gauge({
      name: 'outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest message not yet pushed (0 when none)',
      registers,
      collect: async () => {
        const stats = await pending.get();
        if (stats) oldestPending.set(stats.oldestAgeSeconds);
      },
    });
    const deadLetters: Gauge<'consumer'> = new Gauge({
      name: 'outbox_dead_letters',
      help: 'Dead letters waiting for an operator, by consumer',
      labelNames: ['consumer'],
      registers,
      collect: async () => {
        const counts = await dead.get();
        if (!counts) return;
        deadLetters.reset();
        for (const { consumer, count } of counts) deadLetters.set({ consumer }, count);
      },
    });
    const queueJobs: Gauge<'queue' | 'state'> = new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each module queue, by state (waiting, active, delayed)',
      labelNames: ['queue', 'state'],
      registers,
      collect: async () => {
        for (const { queue, counts } of (await queued.get()) ?? []) {
          if (!counts) continue;
          for (const state of ['waiting', 'active', 'delayed'] as const)
            queueJobs.set({ queue, state }, counts[state] ?? 0);
        }
      },
    });
    const oldestWaiting: Gauge<'queue'> = new Gauge({
      name: 'queue_oldest_waiting_age_seconds',
      help: 'Age of the oldest job waiting in each module queue (0 when none)',
      labelNames: ['queue'],
      registers,
      collect: async () => {
        for (const { queue, oldestWaitingAt } of (await queued.get()) ?? []) {
          if (oldestWaitingAt !== undefined)
            oldestWaiting.set({ queue }, oldestWaitingAt === null ? 0 : seconds(Date.now() - oldestWaitingAt));
        }
      },
    });

    // The logical relay's slot, in any mode.
    registerSlotGauges(registry, this.dataSource, slotNameFor(outbox.slotName, database.directUrl));
  }

  /**
   * The local bus's deliveries in flight in this process, and the age of the oldest: its
   * equivalent of a queue's waiting jobs and oldest waiting job.
   */
  followLocal(figures: () => { inFlight: number; oldestAgeSeconds: number }): void {
    const registers = [this.registry];
    new Gauge({
      name: 'outbox_local_deliveries_in_flight',
      help: 'Deliveries that the local bus (OUTBOX_DELIVERY=local) runs in this process now',
      registers,
      collect() {
        this.set(figures().inFlight);
      },
    });
    new Gauge({
      name: 'outbox_local_oldest_delivery_age_seconds',
      help: 'How long the oldest delivery that the local bus runs in this process has been running (0: none)',
      registers,
      collect() {
        this.set(figures().oldestAgeSeconds);
      },
    });
  }

  observeHandled(consumer: string, outcome: ConsumeOutcome, startedAt: number, createdAt?: string): void {
    this.consumed.inc({ consumer, outcome });
    this.handlerDuration.observe({ consumer }, seconds(Date.now() - startedAt));
    if (outcome === 'ok' && createdAt) {
      this.deliveryDelay.observe({ consumer }, seconds(Date.now() - Date.parse(createdAt)));
    }
  }

  /**
   * Each queue's job counts and when its oldest waiting job was pushed (null: none waiting); a
   * part Redis did not answer is left undefined, and its gauges keep their last values.
   */
  private queueFigures() {
    return Promise.all(
      this.subscriptions.queues().map(async (queue) => {
        const [counts, waiting] = await Promise.all([
          this.read(() => this.queues.queue(queue).getJobCounts('waiting', 'active', 'delayed')),
          this.read(() => this.queues.queue(queue).getWaiting(0, 0)),
        ]);
        return { queue, counts, oldestWaitingAt: waiting && (waiting[0]?.timestamp ?? null) };
      }),
    );
  }

  /** A scrape must answer even when Postgres or Redis does not: the gauge keeps its last value. */
  private async read<T>(query: () => Promise<T>): Promise<T | undefined> {
    try {
      return await query();
    } catch (error) {
      this.logger.debug(`metrics read failed: ${describeError(error)}`);
      return undefined;
    }
  }
}
