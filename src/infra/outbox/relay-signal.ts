import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource, type EntityManager, type EntitySubscriberInterface, type TransactionCommitEvent } from 'typeorm';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { OUTBOX_CHANNEL, OutboxRelay } from './outbox.relay';

interface MarkedData {
  outboxWritten?: boolean;
}

/**
 * Tells a relay that committed outbox rows are waiting, so that it need not wait for its timer.
 *
 * The publisher marks its transaction; after the commit, a process that runs a relay wakes it
 * directly, and a process that runs none (an api-only replica) wakes the others with NOTIFY. That
 * NOTIFY is sent outside any business transaction, because inside one it would cost every
 * producer a global lock at commit (measured at over 40% of their commit rate), and at most once
 * per OUTBOX_NOTIFY_WINDOW_MS: the first commit of a window notifies at once, the others of that
 * window share one notification at its end. A lost signal only costs latency; every relay's timer still
 * finds every row.
 */
@Injectable()
export class RelaySignal implements EntitySubscriberInterface, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RelaySignal');
  private lastSentAt = 0;
  private pending?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
    private readonly relay: OutboxRelay,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  onApplicationBootstrap(): void {
    // TypeORM builds its subscriber list when it connects; this one joins it then.
    void this.connector.ready.then(() => this.dataSource.subscribers.push(this));
  }

  /** Called by the publisher inside the transaction that wrote to the outbox. */
  mark(tx: EntityManager): void {
    if (tx.queryRunner) (tx.queryRunner.data as MarkedData).outboxWritten = true;
  }

  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    const data = queryRunner.data as MarkedData;
    // Also called when a savepoint is released: only the outermost commit counts.
    if (!data.outboxWritten || queryRunner.isTransactionActive) return;
    data.outboxWritten = false;
    if (this.relay.active) this.relay.wake();
    // The logical relay needs no signal: the commit reaches it through the WAL.
    else if (this.config.notify && this.config.relay === 'polling') this.notify();
  }

  private notify(): void {
    if (this.pending) return;
    const wait = this.lastSentAt + this.config.notifyWindowMs - Date.now();
    if (wait > 0) {
      this.pending = setTimeout(() => {
        this.pending = undefined;
        this.send();
      }, wait);
      return;
    }
    this.send();
  }

  private send(): void {
    this.lastSentAt = Date.now();
    this.dataSource
      .query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL])
      .catch((error: unknown) => this.logger.debug(`NOTIFY failed: ${describeError(error)}`));
  }

  onApplicationShutdown(): void {
    clearTimeout(this.pending);
  }
}
