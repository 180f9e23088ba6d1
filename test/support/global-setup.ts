import { randomBytes } from 'node:crypto';
import { answers } from './services';
import { migratedTemplate } from './template-database';
import { assertTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/**
 * Once per run: checks the services, then finds (or builds, when the migrations have changed) the
 * migrated template database that every test database is copied from, and tells the test files
 * its name.
 */
export default async function globalSetup(): Promise<void> {
  assertTestDatabase(TEST_DATABASE_URL);
  for (const [name, url, port] of [
    ['Postgres', TEST_DATABASE_URL, 5432],
    ['Redis', TEST_REDIS_URL, 6379],
  ] as const) {
    if (!(await answers(url, port))) {
      throw new Error(`${name} does not answer at ${url}: run the tests with "npm test", which starts it.`);
    }
  }

  process.env.TEST_RUN_ID ??= randomBytes(3).toString('hex');
  process.env.TEST_TEMPLATE_DATABASE = await migratedTemplate();
}
