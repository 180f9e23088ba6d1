import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DataSource } from 'typeorm';
import { describeError } from '../errors';
import { outboxConfig, type OutboxConfig } from './outbox.config';

/**
 * Says, in the statement it is part of, that a process is alive now: its id, host and pid are the
 * parameters from `$first` on (ProcessLease.seenParams).
 */
export const seen = (first = 1): string =>
  `INSERT INTO outbox.processes (id, host, pid) VALUES ($${first}, $${first + 1}, $${first + 2})
   ON CONFLICT (id) DO UPDATE SET seen_at = clock_timestamp()`;

/**
 * This process as outbox.processes knows it: a new id at every start, and a lease on being judged
 * alive. What a process leaves in Postgres for itself to finish (a run of a suspect delivery, a
 * message claimed by its local bus) is another's to take over once the process is gone: unseen for
 * OUTBOX_PROCESS_LEASE_MS. While something holds the lease, a heartbeat says the process is alive
 * every third of it; a process that holds nothing is judged by nobody.
 */
@Injectable()
export class ProcessLease implements OnApplicationShutdown {
  private readonly logger = new Logger('ProcessLease');
  readonly processId = randomUUID();
  private holders = 0;
  private heartbeat?: NodeJS.Timeout;
  private lastSeenAt = 0;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /** The parameters of `seen` for this process. */
  get seenParams(): [string, string, number] {
    return [this.processId, hostname(), process.pid];
  }

  get leaseSeconds(): number {
    return this.config.processLeaseMs / 1_000;
  }

  /**
   * Whether this process said it was alive within half its lease: what it claims now, others will
   * not take over before it has had the other half to finish.
   */
  get isSeen(): boolean {
    return Date.now() - this.lastSeenAt < this.config.processLeaseMs / 2;
  }

  /** The process said it was alive (in a statement of a holder's own, with `seen`). */
  wasSeen(): void {
    this.lastSeenAt = Date.now();
  }

  /** Keeps the process judged alive until the returned release is called. */
  hold(): () => void {
    this.holders += 1;
    if (!this.heartbeat) {
      this.heartbeat = setInterval(() => void this.beat(), this.config.processLeaseMs / 3);
      this.heartbeat.unref();
      void this.beat();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
      if (this.holders === 0) this.stop();
    };
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  private stop(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private async beat(): Promise<void> {
    try {
      await this.dataSource.query(seen(), this.seenParams);
      this.wasSeen();
    } catch (error) {
      this.logger.debug(`Cannot say this process is alive: ${describeError(error)}`);
    }
  }
}
