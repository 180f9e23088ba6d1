import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { dataSourceOptions } from '../../src/infra/database/data-source.options';
import { recreateDatabase } from './test-database';
import { answers } from './services';
import {
  assertTestDatabase,
  templateDatabaseName,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  withDatabaseName,
} from './test-env';

/**
 * Once per run: checks the services, then builds the migrated template database that every test
 * database is copied from. Importing AppModule registers every module's migrations.
 */
export default async function globalSetup(): Promise<void> {
  void AppModule;
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
  const template = templateDatabaseName();
  await recreateDatabase(template);
  const dataSource = new DataSource({
    ...dataSourceOptions({
      url: withDatabaseName(TEST_DATABASE_URL, template),
      poolSize: 2,
      migrationsRun: false,
      retryMs: 1_000,
    }),
    logger: undefined,
    logging: false,
  });
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  await dataSource.destroy();
}
