import type { DataSource, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import type { TransactionCommitEvent } from 'typeorm/subscriber/event/TransactionCommitEvent';
import type { TransactionRollbackEvent } from 'typeorm/subscriber/event/TransactionRollbackEvent';

/**
 * Work to do once a transaction has committed, and only then: a TypeORM subscriber that runs what
 * was registered for a transaction's query runner after its COMMIT (and drops it on a ROLLBACK).
 * TypeORM awaits it before `commitTransaction` returns, so the caller of the transaction (the
 * checkout's request) waits for it too.
 */
export class AfterCommit implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, Array<() => Promise<void>>>();

  constructor(dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  /** Runs `work` after the transaction of `queryRunner` commits. */
  add(queryRunner: QueryRunner | undefined, work: () => Promise<void>): void {
    if (!queryRunner?.isTransactionActive) throw new Error('Work after a commit needs a transaction to follow');
    const list = this.pending.get(queryRunner) ?? [];
    list.push(work);
    this.pending.set(queryRunner, list);
  }

  async afterTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const work = event.queryRunner && this.pending.get(event.queryRunner);
    if (!work) return;
    this.pending.delete(event.queryRunner);
    for (const run of work) await run();
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (event.queryRunner) this.pending.delete(event.queryRunner);
  }
}
