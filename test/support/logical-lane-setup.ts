import { randomBytes } from 'node:crypto';
import { laneCluster, LOGICAL_LANE_DATABASE_URL } from './logical-lane';
import { LogicalPostgres } from './logical-postgres';
import { startRunParticipants } from './run-participants';
import { migrate, migrationsHash } from './template-database';
import { databaseName, TEST_DATABASE_URL, withDatabaseName } from './test-env';

/**
 * Once for the logical lane: a wal_level=logical cluster of the run's own, and on it the migrated
 * template database that the lane's test databases are copied from, under the name the polling
 * lane's has on the machine's server (built every time: the cluster lives for one run).
 */
export default async function logicalLaneSetup(): Promise<void> {
  process.env.TEST_RUN_ID ??= randomBytes(3).toString('hex');
  const postgres = await LogicalPostgres.start({ maxConnections: 300 });
  laneCluster.set(postgres);
  try {
    const url = withDatabaseName(postgres.url('postgres'), databaseName(TEST_DATABASE_URL));
    // The name the polling lane's template has (template-database.ts), which the test files copy.
    const template =
      (process.env.TEST_TEMPLATE_DATABASE ??= `${databaseName(TEST_DATABASE_URL)}_template_${migrationsHash()}`);
    await migrate(await postgres.createDatabase(template));
    process.env[LOGICAL_LANE_DATABASE_URL] = url;
    await startRunParticipants();
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
