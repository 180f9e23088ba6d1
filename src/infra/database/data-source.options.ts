import { Logger as NestLogger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import type { DatabaseConfig } from '../../config/database.config';
import { AppPgClient } from './app-pg-client';
import { registeredEntities, registeredMigrations } from './database.registry';

/** TypeORM speaks through the app's logger, so its lines are JSON and carry the correlation id. */
class TypeOrmToNestLogger implements TypeOrmLogger {
  private readonly logger = new NestLogger('TypeORM');
  logQuery(): void {}
  logQueryError(error: string | Error, query: string): void {
    this.logger.debug(`query failed: ${error instanceof Error ? error.message : error} -- ${query}`);
  }
  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`slow query (${time} ms): ${query}`);
  }
  logSchemaBuild(): void {}
  logMigration(message: string): void {
    this.logger.log(message);
  }
  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.debug(String(message));
  }
}

type Optional = 'lockTimeoutMs' | 'statementTimeoutMs' | 'preparedStatements';

/**
 * The one place that says how the app talks to Postgres: the app, the migration command and tests
 * use it. Every session is bounded from its start (no round trip; see ADR 0027): no statement waits
 * for a lock longer than the lock timeout, or runs longer than the statement timeout. Migrations
 * lift both for their own session (runMigrations).
 */
export function dataSourceOptions(
  config: Omit<DatabaseConfig, Optional> & Partial<Pick<DatabaseConfig, Optional>>,
): PostgresDataSourceOptions {
  return {
    type: 'postgres',
    url: config.url,
    applicationName: 'checkout-outbox-saga',
    entities: registeredEntities(),
    migrations: registeredMigrations(),
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    poolSize: config.poolSize,
    connectTimeoutMS: 3_000,
    maxQueryExecutionTime: 1_000,
    logger: new TypeOrmToNestLogger(),
    extra: {
      // Sends a transaction's BEGIN with its first statement, and prepares each statement once.
      Client: AppPgClient,
      prepareStatements: config.preparedStatements ?? true,
      idleTimeoutMillis: 30_000,
      // Sent with the connection's startup message; 0 or missing means no limit.
      lock_timeout: config.lockTimeoutMs || undefined,
      statement_timeout: config.statementTimeoutMs || undefined,
    },
  };
}
