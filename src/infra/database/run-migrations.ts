import type { DataSource, Migration } from 'typeorm';

/** Any number works as long as nothing else in the database takes the same advisory lock. */
const MIGRATION_LOCK = 7_316_470_001;

/**
 * Applies pending migrations, each in its own transaction. Replicas that start together take
 * turns on an advisory lock, so no migration runs twice.
 */
export async function runMigrations(dataSource: DataSource): Promise<Migration[]> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}
