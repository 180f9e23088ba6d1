/** Where the tests find Postgres and Redis; both default to what docker-compose.yml publishes. */
export const TEST_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/checkout_test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Set by the global setup; names this run's databases and Redis keys. */
export const runId = (): string => process.env.TEST_RUN_ID ?? 'local';

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
