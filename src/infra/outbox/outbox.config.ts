import { type ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { EnvBoolean, readEnv } from '../../config/env';

/** How committed outbox rows reach the queues: a relay that polls the table, or one that reads the WAL (ADR 0079). */
export const RELAYS = ['polling', 'logical'] as const;
export type RelayKind = (typeof RELAYS)[number];

/**
 * How a message whose consumers all run in the process that committed it reaches them: handed to
 * them by that process right after its commit (local), or through the relay and the queues
 * (queue), as every other message is (ADR 0096).
 */
export const DELIVERIES = ['local', 'queue'] as const;
export type DeliveryKind = (typeof DELIVERIES)[number];
export const DEFAULT_DELIVERY: DeliveryKind = 'local';

class OutboxEnv {
  /** local: the process that commits a message hands it to its consumers here; queue: always through Redis. */
  @IsIn(DELIVERIES, { message: `must be one of ${DELIVERIES.join(', ')}` }) OUTBOX_DELIVERY: DeliveryKind =
    DEFAULT_DELIVERY;
  /** Local deliveries one process runs at once; above it, messages go through the queues. */
  @IsInt() @Min(1) @Max(10_000) OUTBOX_LOCAL_IN_FLIGHT: number = 256;
  /** polling (claims unpublished rows) or logical (reads the inserts from a logical replication slot). */
  @IsIn(RELAYS, { message: `must be one of ${RELAYS.join(', ')}` }) OUTBOX_RELAY: RelayKind = 'polling';
  /** The logical relay's replication slot; unset: outbox_relay_ and the database's name. */
  @IsOptional()
  @Matches(/^[a-z0-9_]{1,63}$/, { message: 'must be 1 to 63 lower-case letters, digits or underscores' })
  OUTBOX_SLOT_NAME?: string = undefined;
  /** How often the relay looks for unpublished rows when no notification woke it. */
  @IsInt() @Min(10) @Max(60_000) OUTBOX_RELAY_INTERVAL_MS: number = 1_000;
  @IsInt() @Min(1) @Max(10_000) OUTBOX_RELAY_BATCH_SIZE: number = 500;
  /** Whether a commit in a process without a relay wakes the relays elsewhere (LISTEN/NOTIFY). */
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) OUTBOX_NOTIFY: boolean = true;
  /** Commits within this window share one NOTIFY. */
  @IsInt() @Min(0) @Max(1_000) OUTBOX_NOTIFY_WINDOW_MS: number = 25;
  /** Jobs one process holds at once, per module queue. */
  @IsInt() @Min(1) @Max(1_000) OUTBOX_WORKER_CONCURRENCY: number = 64;
  /** Most deliveries that share one consumer transaction; 1 gives each its own. */
  @IsInt() @Min(1) @Max(1_000) OUTBOX_CONSUMER_BATCH_SIZE: number = 64;
  /**
   * How long a worker holds a job before others may take it: a worker that dies loses its jobs
   * to the others after this long.
   */
  @IsInt() @Min(500) @Max(600_000) OUTBOX_JOB_LOCK_MS: number = 30_000;
  /** Deliveries of a message to one consumer before it is dead-lettered. */
  @IsInt() @Min(1) @Max(100) OUTBOX_ATTEMPTS: number = 5;
  /** Deliveries of a message to one consumer that end with its worker dead before it is dead-lettered. */
  @IsInt() @Min(1) @Max(100) OUTBOX_CRASH_LIMIT: number = 3;
  /**
   * How long a process that runs a delivery alone may go unseen before it counts as gone, and the
   * run it left as a crash. Unset: a third of OUTBOX_JOB_LOCK_MS, at least 2 s, so that a crash is
   * found about when its job is (longer than a stall of a busy event loop).
   */
  @IsOptional() @IsInt() @Min(1_000) @Max(600_000) OUTBOX_PROCESS_LEASE_MS?: number = undefined;
  /** First retry delay; each next one doubles. */
  @IsInt() @Min(1) @Max(3_600_000) OUTBOX_BACKOFF_MS: number = 500;
  /**
   * Attempts of a consumer that waits out its participant's outages (`waitsOutOutages`: the
   * invoice) before it is dead-lettered; its waits double from OUTBOX_BACKOFF_MS up to
   * OUTBOX_OUTAGE_MAX_WAIT_MS: about 11 hours in all with the defaults.
   */
  @IsInt() @Min(1) @Max(1_000) OUTBOX_OUTAGE_ATTEMPTS: number = 24;
  /** The longest wait between two attempts of such a consumer. */
  @IsInt() @Min(1) @Max(86_400_000) OUTBOX_OUTAGE_MAX_WAIT_MS: number = 3_600_000;
  /** A pushed message that some consumer has not handled after this long is pushed again to it. */
  @IsInt() @Min(100) @Max(86_400_000) OUTBOX_REDELIVER_AFTER_MS: number = 30_000;
  @IsInt() @Min(100) @Max(3_600_000) OUTBOX_SWEEP_INTERVAL_MS: number = 5_000;
  /** Delivered messages and inbox rows are kept this long, then purged. */
  @IsInt() @Min(1) @Max(24 * 365) OUTBOX_RETENTION_HOURS: number = 168;
  @IsInt() @Min(1_000) @Max(86_400_000) OUTBOX_HOUSEKEEPING_INTERVAL_MS: number = 600_000;
  /** A consumer that no running process has registered for this long is no longer routed to. */
  @IsInt() @Min(10_000) @Max(7 * 86_400_000) OUTBOX_CONSUMER_RETIRE_AFTER_MS: number = 3_600_000;
}

export const outboxConfig = registerAs('outbox', () => {
  const env = readEnv(OutboxEnv);
  return {
    delivery: env.OUTBOX_DELIVERY,
    localInFlight: env.OUTBOX_LOCAL_IN_FLIGHT,
    relay: env.OUTBOX_RELAY,
    slotName: env.OUTBOX_SLOT_NAME,
    relayIntervalMs: env.OUTBOX_RELAY_INTERVAL_MS,
    relayBatchSize: env.OUTBOX_RELAY_BATCH_SIZE,
    notify: env.OUTBOX_NOTIFY,
    notifyWindowMs: env.OUTBOX_NOTIFY_WINDOW_MS,
    workerConcurrency: env.OUTBOX_WORKER_CONCURRENCY,
    consumerBatchSize: env.OUTBOX_CONSUMER_BATCH_SIZE,
    jobLockMs: env.OUTBOX_JOB_LOCK_MS,
    attempts: env.OUTBOX_ATTEMPTS,
    crashLimit: env.OUTBOX_CRASH_LIMIT,
    processLeaseMs: env.OUTBOX_PROCESS_LEASE_MS ?? Math.max(2_000, Math.round(env.OUTBOX_JOB_LOCK_MS / 3)),
    backoffMs: env.OUTBOX_BACKOFF_MS,
    outage: { attempts: env.OUTBOX_OUTAGE_ATTEMPTS, maxWaitMs: env.OUTBOX_OUTAGE_MAX_WAIT_MS },
    redeliverAfterMs: env.OUTBOX_REDELIVER_AFTER_MS,
    sweepIntervalMs: env.OUTBOX_SWEEP_INTERVAL_MS,
    retentionHours: env.OUTBOX_RETENTION_HOURS,
    housekeepingIntervalMs: env.OUTBOX_HOUSEKEEPING_INTERVAL_MS,
    consumerRetireAfterMs: env.OUTBOX_CONSUMER_RETIRE_AFTER_MS,
  };
});
export type OutboxConfig = ConfigType<typeof outboxConfig>;
