import type { LogicalPostgres } from './logical-postgres';

/**
 * The logical lane (jest.config.js's `logical` project): the transport's and the checkout's tests
 * again, with OUTBOX_RELAY=logical on a private wal_level=logical cluster. Its global setup starts
 * the cluster and names its address here for the test files (the workers inherit the variable).
 */
export const LOGICAL_LANE_DATABASE_URL = 'LOGICAL_LANE_DATABASE_URL';
/** The relay the apps of a test file run with, unless the test sets its own (test-env.ts). */
export const TEST_OUTBOX_RELAY = 'TEST_OUTBOX_RELAY';

/** Held from the global setup to the global teardown, which run in Jest's own process. */
const holder = globalThis as { logicalLanePostgres?: LogicalPostgres };
export const laneCluster = {
  get: () => holder.logicalLanePostgres,
  set: (postgres: LogicalPostgres | undefined) => (holder.logicalLanePostgres = postgres),
};
