import { randomBytes } from 'node:crypto';
import { answers } from './services';
import { assertTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/**
 * Once per run of `npm run test:unit`: checks that Postgres and Redis answer and names the run.
 * No template database and no app: the unit specs boot nothing, and those that need Postgres
 * migrate a database of their own with the transport's migrations alone (test/support/transport-rig.ts).
 */
export default async function unitGlobalSetup(): Promise<void> {
  assertTestDatabase(TEST_DATABASE_URL);
  for (const [name, url, port] of [
    ['Postgres', TEST_DATABASE_URL, 5432],
    ['Redis', TEST_REDIS_URL, 6379],
  ] as const) {
    if (!(await answers(url, port))) {
      throw new Error(`${name} does not answer at ${url}: run the tests with "npm run test:unit", which starts it.`);
    }
  }
  process.env.TEST_RUN_ID ??= randomBytes(3).toString('hex');
}
