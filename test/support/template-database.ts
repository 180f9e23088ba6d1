import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, escapeIdentifier } from 'pg';
import type * as Typeorm from 'typeorm';
import type * as DataSourceOptions from '../../src/infra/database/data-source.options';
import { dropDatabase, recreateDatabase } from './test-database';
import { databaseName, runDatabasePrefix, TEST_DATABASE_URL, withDatabaseName } from './test-env';

const root = path.resolve(__dirname, '../..');

/** A template of another migration set that nobody has copied for this long is dropped. */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * What decides a template's tables: every migration, the module files that register them, how
 * the app runs them (src/infra/database) and the TypeORM that runs them. Entities do not: the app
 * never synchronizes.
 */
export function migrationsHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (
        file.endsWith('.ts') &&
        (file.includes(`${path.sep}migrations${path.sep}`) ||
          file.endsWith('.module.ts') ||
          path.dirname(file) === path.join(root, 'src', 'infra', 'database'))
      ) {
        hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
      }
    }
  };
  walk(path.join(root, 'src'));
  hash.update(JSON.parse(readFileSync(path.join(root, 'node_modules', 'typeorm', 'package.json'), 'utf8')).version);
  return hash.digest('hex').slice(0, 16);
}

async function onMaintenance<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withDatabaseName(TEST_DATABASE_URL, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The migrated database that every test database is copied from, kept between runs under a name
 * that carries the migrations' hash: a run whose migrations have not changed copies it at once
 * (neither loading the app to learn its migrations nor running them), and one whose migrations
 * have changed builds its own. Built under this run's prefix (the teardown drops it if the build
 * fails) and renamed when complete, so that a half-built template never bears the name; two runs
 * building the same one at once both finish, and the second drops its copy.
 */
export async function migratedTemplate(): Promise<string> {
  const base = databaseName(TEST_DATABASE_URL);
  const name = `${base}_template_${migrationsHash()}`;
  const now = new Date().toISOString();
  const found = await onMaintenance(async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    // When it was last copied, so that a template of migrations long gone can be dropped.
    if (rowCount) await client.query(`COMMENT ON DATABASE ${escapeIdentifier(name)} IS '${now}'`);
    return Boolean(rowCount);
  });
  if (found) return name;

  const building = `${runDatabasePrefix()}template`;
  await recreateDatabase(building);
  await migrate(withDatabaseName(TEST_DATABASE_URL, building));

  await onMaintenance(async (client) => {
    try {
      await client.query(`ALTER DATABASE ${escapeIdentifier(building)} RENAME TO ${escapeIdentifier(name)}`);
      await client.query(`COMMENT ON DATABASE ${escapeIdentifier(name)} IS '${now}'`);
    } catch (error) {
      // Another run built the same template meanwhile: its copy is as good as ours.
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
    const { rows } = await client.query<{ datname: string; used: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS used FROM pg_database
        WHERE starts_with(datname, $1) AND datname <> $2`,
      [`${base}_template_`, name],
    );
    for (const { datname, used } of rows) {
      if (used && Date.now() - Date.parse(used) > STALE_AFTER_MS) {
        await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(datname)}`).catch(() => undefined);
      }
    }
  });
  await dropDatabase(building);
  return name;
}

/** Runs every module's migrations on the database at `url` (the logical lane's template too). */
export async function migrate(url: string): Promise<void> {
  // Only a build loads the app and TypeORM: importing AppModule registers every module's migrations.
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('reflect-metadata');
  require('../../src/app.module');
  const { DataSource } = require('typeorm') as typeof Typeorm;
  const { dataSourceOptions } = require('../../src/infra/database/data-source.options') as typeof DataSourceOptions;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const dataSource = new DataSource({
    ...dataSourceOptions({ url, poolSize: 2, migrationsRun: false, retryMs: 1_000 }),
    logger: undefined,
    logging: false,
  });
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  await dataSource.destroy();
}
