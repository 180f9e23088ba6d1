import { randomBytes } from 'node:crypto';

/** Where the tests find Postgres and Redis; both default to what docker-compose.yml publishes. */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/checkout_test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Signs the buyers' tokens of every test app, so that a test can also sign one the app must refuse. */
export const AUTH_TOKEN_SECRET = 'test-token-secret-0123456789abcdefghijklmnop';

/**
 * What every app the tests start runs with, in this process or as a child process: the token
 * secret, no rate limits (a test that wants a limit sets it), and gauges read at each scrape, so
 * that a test reads a figure right after changing it (a test of the reading interval sets its
 * own), the lane's relay, and the run's card gateway and fiscal authority. The admin token is the tests' to give: some need an app without one.
 */
export const testAppEnv = (): Record<string, string> => ({
  AUTH_TOKEN_SECRET,
  RATE_LIMIT_SIGNUPS: '0',
  RATE_LIMIT_CHECKOUTS: '0',
  RATE_LIMIT_READS: '0',
  METRICS_READ_INTERVAL_MS: '0',
  // The logical lane's files run with the logical relay (logical-lane.ts); the rest with polling.
  OUTBOX_RELAY: process.env.TEST_OUTBOX_RELAY ?? 'polling',
  // The queue lane's files run with every delivery through the queues; the rest with the default.
  ...(process.env.TEST_OUTBOX_DELIVERY ? { OUTBOX_DELIVERY: process.env.TEST_OUTBOX_DELIVERY } : {}),
  // The participants the run's setup started (run-participants.ts): every checkout pays and invoices there.
  ...(process.env.TEST_CARD_GATEWAY_URL ? { CARD_GATEWAY_URL: process.env.TEST_CARD_GATEWAY_URL } : {}),
  ...(process.env.TEST_FISCAL_AUTHORITY_URL ? { FISCAL_AUTHORITY_URL: process.env.TEST_FISCAL_AUTHORITY_URL } : {}),
});

/**
 * For the files whose subject is the queue path itself (the relay driven by hand, what a job
 * carries, replicas' relays, a trace through the relay's process): every message through the relay
 * and the queues, whatever the default (ADR 0096).
 */
export const THROUGH_THE_QUEUES = { OUTBOX_DELIVERY: 'queue' } as const;

/** Set by the global setup; names this run's databases and Redis keys. */
export const runId = (): string => process.env.TEST_RUN_ID ?? 'local';

/**
 * Every database of this run starts with this: two runs on one server (two checkouts of the
 * project, say) never touch each other's, and the teardown drops them all.
 */
export const runDatabasePrefix = (): string => `${databaseName(TEST_DATABASE_URL)}_${runId()}_`;

/** The migrated database that every test database of this run is copied from (see template-database.ts). */
export function templateDatabaseName(): string {
  const name = process.env.TEST_TEMPLATE_DATABASE;
  if (!name)
    throw new Error('TEST_TEMPLATE_DATABASE is not set: the tests run through Jest, whose global setup sets it');
  return name;
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

/** Tests drop and create databases: they refuse to touch one whose name does not say so. */
export function assertTestDatabase(url: string): void {
  const name = databaseName(url);
  if (!/test/i.test(name)) {
    throw new Error(`Refusing to run tests against database "${name}": its name must contain "test"`);
  }
}

let apps = 0;

/**
 * A fresh key prefix, so that this app's queues are its own. Random, not only counted: each test
 * file loads this module afresh (its counter starts again) in a worker that ran other files, and an
 * earlier app's leftover jobs (a retry still delayed) must not land in a later app's queues.
 */
export const newQueuePrefix = (): string =>
  `t${runId()}-${process.env.JEST_WORKER_ID ?? 0}-${randomBytes(3).toString('hex')}-${++apps}`;
