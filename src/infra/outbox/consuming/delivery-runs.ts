import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { describeError } from '../../errors';
import { type DeliveryIds, DeliveryLog, type Takes } from '../dead-letters/delivery-log';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { ProcessLease, seen } from '../process-lease';

/**
 * What a delivery suspected of killing its worker may do now: run (its run is recorded, `runId`),
 * wait (it runs alone in a live process elsewhere: a worker cut from Redis, not a dead one), or
 * nothing (its crashes reached the limit and it is dead-lettered). `unknown`: the outbox lacks the
 * message or the consumer does not take it; nothing was recorded, and the inbox refuses it.
 */
export type RunClaim =
  | { kind: 'run'; runId: string; crashes: number }
  | { kind: 'elsewhere'; crashes: number }
  | { kind: 'dead'; reason: string; type?: string }
  | { kind: 'unknown' };

interface ClaimRow {
  crashes: number;
  elsewhere: boolean;
}

const CRASH = 'the worker died while it ran the delivery alone';

/** Ends runs: in the transaction that handles their deliveries, or alone once they failed. */
export const END_RUNS = `DELETE FROM outbox.runs WHERE id = ANY ($1::uuid[])`;

/**
 * The record of crashes, kept in Postgres alone. A delivery that runs alone (a suspect: its worker
 * died, or lost its job, while it held it) writes that it began, committed before its handler
 * runs, and the transaction that handles it deletes the row. A row left by a process that is gone
 * (not seen for OUTBOX_PROCESS_LEASE_MS) is a crash, charged once, by the next process that takes
 * the delivery; a row of a process that is alive is a run in progress (that process lost Redis,
 * not its life), and the delivery waits for it. Nothing a job carries charges a crash.
 *
 * A process says it is alive while it has runs in progress, or ends it could not write yet: each
 * begin writes it, and a heartbeat every third of the lease keeps it fresh. A process with no run
 * in progress is judged by nobody.
 */
@Injectable()
export class DeliveryRuns implements OnApplicationShutdown {
  private readonly logger = new Logger('DeliveryRuns');
  private readonly inProgress = new Set<string>();
  /** Runs that ended without their transaction deleting them, and whose delete failed: retried by the heartbeat. */
  private readonly unended = new Set<string>();
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly deliveryLog: DeliveryLog,
    private readonly lease: ProcessLease,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /**
   * In one transaction: charges the runs of this delivery left by processes that are gone (each
   * once, keyed by its run), drops this process's own stale ones uncharged, counts the delivery's
   * crashes since its last dead letter was resolved, and, below the limit and with no run in
   * progress elsewhere, records this run. At the limit, the dead letter commits with the charge
   * that reached it.
   */
  claim(delivery: DeliveryIds, takes: Takes, attempt: number): Promise<RunClaim> {
    const runId = randomUUID();
    this.inProgress.add(runId);
    this.beat();
    return this.txHost
      .withTransaction(async () => {
        const [row] = await this.txHost.tx.query<ClaimRow[]>(
          `WITH alive AS (${seen(7)}),
           message AS (
             SELECT id, correlation_id FROM outbox.messages
              WHERE id = $1 AND type = ANY ($4::text[]) AND headers @> $5::jsonb),
           runs AS (
             SELECT r.id, r.process_id = $7 AS mine,
                    coalesce(p.seen_at < clock_timestamp() - make_interval(secs => $10), true) AS gone
               FROM outbox.runs r LEFT JOIN outbox.processes p ON p.id = r.process_id
              WHERE r.message_id = $1 AND r.consumer = $2
              FOR UPDATE OF r),
           ended AS (
             DELETE FROM outbox.runs WHERE id IN (SELECT id FROM runs WHERE gone OR mine)),
           charged AS (
             INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error, stall)
             SELECT m.id, $2, m.correlation_id, $3, 'crashed', '${CRASH}', r.id::text
               FROM message m, runs r WHERE r.gone AND NOT r.mine
             ON CONFLICT (message_id, consumer, stall) WHERE stall IS NOT NULL DO NOTHING
             RETURNING 1),
           tally AS (
             SELECT (SELECT count(*) FROM charged)::int + count(*)::int AS crashes,
                    EXISTS (SELECT 1 FROM runs WHERE NOT gone AND NOT mine) AS elsewhere
               FROM outbox.delivery_attempts
              WHERE message_id = $1 AND consumer = $2 AND outcome = 'crashed'
                AND at > coalesce((SELECT max(resolved_at) FROM outbox.dead_letters
                                    WHERE message_id = $1 AND consumer = $2), '-infinity')),
           began AS (
             INSERT INTO outbox.runs (id, message_id, consumer, process_id)
             SELECT $6, m.id, $2, $7 FROM message m, tally t WHERE t.crashes < $11 AND NOT t.elsewhere)
           SELECT t.crashes, t.elsewhere FROM tally t WHERE EXISTS (SELECT 1 FROM message)`,
          [
            delivery.id,
            delivery.consumer,
            attempt,
            takes.types,
            JSON.stringify(takes.where),
            runId,
            ...this.lease.seenParams,
            this.lease.leaseSeconds,
            this.config.crashLimit,
          ],
        );
        this.lease.wasSeen();
        if (!row) return { kind: 'unknown' } as const;
        const { crashes, elsewhere } = row;
        if (crashes >= this.config.crashLimit) {
          const reason = `crashed the worker ${crashes} times`;
          return { kind: 'dead', reason, type: await this.deliveryLog.deadLetter(delivery, attempt, reason) } as const;
        }
        if (elsewhere) return { kind: 'elsewhere', crashes } as const;
        return { kind: 'run', runId, crashes } as const;
      })
      .then(
        (claim) => {
          if (claim.kind !== 'run') this.forget(runId);
          return claim;
        },
        (error: unknown) => {
          this.forget(runId);
          throw error;
        },
      );
  }

  /**
   * The run is over: `committed` says its delivery's transaction deleted its row (END_RUNS, in
   * that transaction). Otherwise the row
   * is deleted now, or, if Postgres does not take it, by the heartbeat later: while this process
   * lives, its run is never judged a crash.
   */
  async ended(runId: string, committed: boolean): Promise<void> {
    if (!committed) {
      try {
        await this.dataSource.query(END_RUNS, [[runId]]);
      } catch {
        this.unended.add(runId);
      }
    }
    this.forget(runId);
  }

  onApplicationShutdown(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private forget(runId: string): void {
    this.inProgress.delete(runId);
    this.quietIfIdle();
  }

  /** Says this process is alive, every third of the lease, while it has runs in progress or unended. */
  private beat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.stillAlive(), this.config.processLeaseMs / 3);
    this.heartbeat.unref();
  }

  private quietIfIdle(): void {
    if (this.inProgress.size > 0 || this.unended.size > 0) return;
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private async stillAlive(): Promise<void> {
    const unended = [...this.unended];
    try {
      await this.dataSource.query(`WITH ended AS (DELETE FROM outbox.runs WHERE id = ANY ($4::uuid[])) ${seen()}`, [
        ...this.lease.seenParams,
        unended,
      ]);
      this.lease.wasSeen();
      unended.forEach((runId) => this.unended.delete(runId));
      this.quietIfIdle();
    } catch (error) {
      this.logger.debug(`Cannot say this process is alive: ${describeError(error)}`);
    }
  }
}
