import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { databaseConfig } from './config/database.config';
import { createDatabase, isMissingDatabase } from './infra/database/create-database';
import { migrationDataSourceOptions } from './infra/database/data-source.options';
import { runMigrations } from './infra/database/run-migrations';

/**
 * `npm run migration:run`: applies every module's pending migrations to DATABASE_DIRECT_URL (or
 * DATABASE_URL without one), then exits.
 */
async function migrate(): Promise<void> {
  void AppModule; // importing it registers every module's migrations
  const config = databaseConfig();
  const dataSource = new DataSource(migrationDataSourceOptions(config));
  await dataSource.initialize().catch(async (error: unknown) => {
    if (!isMissingDatabase(error)) throw error;
    process.stdout.write(`Created database ${await createDatabase(config.directUrl)}\n`);
    await dataSource.initialize();
  });
  try {
    const applied = await runMigrations(dataSource);
    process.stdout.write(
      applied.length === 0 ? 'No pending migrations\n' : applied.map((m) => `Applied ${m.name}\n`).join(''),
    );
  } finally {
    await dataSource.destroy();
  }
}

migrate().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
