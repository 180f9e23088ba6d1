import { type DataSource, type Migration, MigrationExecutor } from 'typeorm';

/** Any number works as long as nothing else in the database takes the same advisory lock. */
export const MIGRATION_LOCK = 7_316_470_001;

/**
 * Applies pending migrations, each in its own transaction. Replicas that start together take
 * turns on an advisory lock, so no migration runs twice (`onLockTaken` is called once this one
 * has it). A migration may legitimately wait for a lock or run long: its session lifts the app's
 * bounds (dataSourceOptions) while it runs.
 */
export async function runMigrations(dataSource: DataSource, onLockTaken?: () => void): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SET lock_timeout = 0; SET statement_timeout = 0');
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    onLockTaken?.();
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'each';
    return await executor.executePendingMigrations();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    // Back to the bounds the session started with, before the pool hands it to the app.
    await runner.query('RESET lock_timeout; RESET statement_timeout').catch(() => undefined);
    await runner.release();
  }
}
