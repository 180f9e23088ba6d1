import { Logger as NestLogger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import type { DatabaseConfig } from '../../config/database.config';
import { AppPgClient, type AppPgClientConfig } from './app-pg-client';
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

type Optional = 'lockTimeoutMs' | 'statementTimeoutMs' | 'preparedStatements' | 'pooler';
type Config = Omit<DatabaseConfig, Optional | 'directUrl' | 'startWaitMs'> & Partial<Pick<DatabaseConfig, Optional>>;

/**
 * The session's bounds, 0 or missing meaning no limit. Straight to Postgres they are sent with the
 * connection's startup message. A pooler refuses startup parameters it does not know (or drops
 * them, if told to ignore them), and one in transaction mode hands every transaction a connection
 * that any client may have set: behind a pooler, each transaction sets its own (SET LOCAL), in the
 * write of its BEGIN (AppPgClient, ADR 0072).
 */
function bounds(config: Config): Pick<AppPgClientConfig, 'lock_timeout' | 'statement_timeout' | 'transactionBounds'> {
  const lockTimeoutMs = config.lockTimeoutMs || undefined;
  const statementTimeoutMs = config.statementTimeoutMs || undefined;
  if ((config.pooler ?? 'none') !== 'none') return { transactionBounds: { lockTimeoutMs, statementTimeoutMs } };
  return { lock_timeout: lockTimeoutMs, statement_timeout: statementTimeoutMs };
}

/**
 * The one place that says how the app talks to Postgres: the app, the migration command and tests
 * use it. Every session is bounded from its start (no round trip; see ADR 0027): no statement waits
 * for a lock longer than the lock timeout, or runs longer than the statement timeout. Migrations
 * lift both for their own session (runMigrations).
 */
export function dataSourceOptions(config: Config): PostgresDataSourceOptions {
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
      ...bounds(config),
    },
  };
}

/**
 * For migrations: they hold a session's advisory lock and run unbounded, so they go to Postgres
 * itself (DATABASE_DIRECT_URL) on a connection of their own, never through a pooler that moves
 * sessions. Without a direct URL they go where DATABASE_URL leads (a session-mode pooler keeps
 * their session).
 */
export function migrationDataSourceOptions(config: DatabaseConfig): PostgresDataSourceOptions {
  const direct = config.directUrl !== config.url;
  return dataSourceOptions({
    ...config,
    url: config.directUrl,
    pooler: direct ? 'none' : config.pooler,
    poolSize: 1,
    lockTimeoutMs: 0,
    statementTimeoutMs: 0,
  });
}
