import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  DataSource,
  type EntityManager,
  type EntitySubscriberInterface,
  type TransactionCommitEvent,
  type TransactionRollbackEvent,
} from 'typeorm';
import { DatabaseConnector } from '../../database/database.connector';
import { describeError } from '../../errors';
import type { Subscription } from '../consuming/subscriptions';
import type { OutboxMessage } from '../message';

/** A message that the process that wrote it delivers itself after the commit (the local bus). */
export interface ClaimedMessage extends OutboxMessage {
  /** When it was written, as this process saw it. */
  createdAt: string;
  /** Its consumers, every one of them in this process. */
  subscriptions: Subscription[];
}

/** What one committed transaction wrote to the outbox. */
export interface OutboxCommit {
  /** Messages left for a relay. */
  queued: number;
  /** Messages this process delivers itself. */
  claimed: ClaimedMessage[];
}

interface Marked {
  outbox?: OutboxCommit;
}

/**
 * Tells who listens that a transaction that wrote to the outbox has committed, and what it wrote:
 * the relay's signal wakes a relay for what is queued, the local bus delivers what it claimed.
 * The publisher marks the transaction; nothing is told of one that rolled back.
 */
@Injectable()
export class OutboxCommits implements EntitySubscriberInterface, OnApplicationBootstrap {
  private readonly logger = new Logger('OutboxCommits');
  private readonly listeners: Array<(commit: OutboxCommit) => void> = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
  ) {}

  onApplicationBootstrap(): void {
    // TypeORM builds its subscriber list when it connects; this one joins it then.
    void this.connector.ready.then(() => this.dataSource.subscribers.push(this));
  }

  listen(listener: (commit: OutboxCommit) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Called by the publisher inside the transaction that wrote a message; `claimed` when this
   * process delivers it. False when the transaction cannot be followed to its commit (then the
   * message must not be claimed).
   */
  mark(tx: EntityManager, claimed?: ClaimedMessage): boolean {
    if (!tx.queryRunner) return false;
    const data = tx.queryRunner.data as Marked;
    data.outbox ??= { queued: 0, claimed: [] };
    if (claimed) data.outbox.claimed.push(claimed);
    else data.outbox.queued += 1;
    return true;
  }

  /** Whether `mark` can follow this transaction. */
  canFollow(tx: EntityManager): boolean {
    return tx.queryRunner !== undefined;
  }

  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    const data = queryRunner.data as Marked;
    // Also called when a savepoint is released: only the outermost commit counts.
    if (!data.outbox || queryRunner.isTransactionActive) return;
    const commit = data.outbox;
    data.outbox = undefined;
    for (const listener of this.listeners) {
      try {
        listener(commit);
      } catch (error) {
        // The commit happened: what a listener failed to do, the relay's timer or the sweep does.
        this.logger.warn(`After a commit: ${describeError(error)}`);
      }
    }
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    // A savepoint rolled back keeps the rest: a message it took with it is not found when delivered.
    if (!queryRunner.isTransactionActive) (queryRunner.data as Marked).outbox = undefined;
  }
}
