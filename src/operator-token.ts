import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { appConfig, GENERATED_ADMIN_TOKEN } from './config/app.config';
import { databaseConfig } from './config/database.config';
import { newOperatorToken, storeOperatorToken } from './infra/admin/operator-token';
import { dataSourceOptions } from './infra/database/data-source.options';
import { runMigrations } from './infra/database/run-migrations';

/**
 * `npm run operator-token` (`node dist/operator-token.js` in the image): makes a new operator
 * token for a deployment run with ADMIN_TOKEN=generate, in place of the one it had, and prints it.
 * Every process of the deployment takes the new one within seconds; the old one stops working.
 */
async function makeOperatorToken(): Promise<void> {
  void AppModule; // importing it registers every module's migrations
  const { adminToken } = appConfig();
  if (adminToken.kind === 'configured') {
    process.stderr.write(
      `ADMIN_TOKEN is set to a token of its own here: processes run with it use that one. ` +
        `This token serves those run with ADMIN_TOKEN=${GENERATED_ADMIN_TOKEN}.\n`,
    );
  }
  const dataSource = new DataSource(dataSourceOptions(databaseConfig()));
  await dataSource.initialize();
  try {
    await runMigrations(dataSource);
    const token = newOperatorToken();
    await storeOperatorToken(dataSource, token, true);
    process.stdout.write(`${token}\n`);
  } finally {
    await dataSource.destroy();
  }
}

makeOperatorToken().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
