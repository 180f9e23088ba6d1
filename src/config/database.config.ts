import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { EnvBoolean, InvalidEnvironmentError, readEnv } from './env';
import { publishedPasswordProblem } from './published-secrets';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s/]+\/[^\s/?]+(\?\S*)?$/;

/** What stands between the app and Postgres on DATABASE_URL (ADR 0072). */
export const POOLERS = ['none', 'session', 'transaction'] as const;
export type Pooler = (typeof POOLERS)[number];

class DatabaseEnv {
  @Matches(POSTGRES_URL, {
    message:
      'must be a postgres:// URL with a database name, e.g. postgres://postgres:postgres@localhost:5432/checkout',
  })
  DATABASE_URL: string = 'postgres://postgres:postgres@localhost:5432/checkout';
  /**
   * Postgres itself, for what is bound to a session (LISTEN, the migrations' advisory lock), when
   * DATABASE_URL goes through a pooler that moves sessions between connections; DATABASE_URL if unset.
   */
  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// URL with a database name, to Postgres itself' })
  DATABASE_DIRECT_URL?: string = undefined;
  /** none, session or transaction: the pool mode of a pooler (PgBouncer) on DATABASE_URL. */
  @IsIn(POOLERS, { message: `must be one of ${POOLERS.join(', ')}` }) DATABASE_POOLER: Pooler = 'none';
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) DATABASE_MIGRATIONS_RUN: boolean = true;
  @IsInt() @Min(1) @Max(200) DATABASE_POOL_SIZE: number = 10;
  @IsInt() @Min(100) @Max(60_000) DATABASE_RETRY_MS: number = 2_000;
  /** How long the start waits for Postgres's first answer (connected and migrated) before it listens anyway. */
  @IsInt() @Min(0) @Max(600_000) DATABASE_START_WAIT_MS: number = 15_000;
  /** How long a statement of the app waits for a lock before it gives up (0: as long as it takes). */
  @IsInt() @Min(0) @Max(600_000) DATABASE_LOCK_TIMEOUT_MS: number = 5_000;
  /** How long one statement of the app may run (0: as long as it takes). */
  @IsInt() @Min(0) @Max(600_000) DATABASE_STATEMENT_TIMEOUT_MS: number = 15_000;
  /** Prepare each statement once per connection (false behind a pooler that moves sessions, ADR 0062). */
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) DATABASE_PREPARED_STATEMENTS: boolean = true;
}

/**
 * A transaction-mode pooler hands each transaction whatever server connection is free: what a
 * session keeps (LISTEN, a lock held past a statement, a statement prepared on the connection) is
 * lost or lands on another client. The app refuses to start so configured rather than misbehave.
 */
function poolerProblems(env: DatabaseEnv): string[] {
  if (env.DATABASE_POOLER !== 'transaction') return [];
  const problems: string[] = [];
  if (!env.DATABASE_DIRECT_URL || env.DATABASE_DIRECT_URL === env.DATABASE_URL) {
    problems.push(
      'DATABASE_DIRECT_URL: must lead to Postgres itself when DATABASE_URL goes through a transaction-mode pooler (DATABASE_POOLER=transaction): LISTEN and session locks do not survive one',
    );
  }
  if (env.DATABASE_PREPARED_STATEMENTS) {
    problems.push(
      'DATABASE_PREPARED_STATEMENTS: must be false through a transaction-mode pooler (DATABASE_POOLER=transaction): a statement prepared on one server connection is missing on the next',
    );
  }
  return problems;
}

/** The database settings of `env`; throws InvalidEnvironmentError, naming each problem. */
export function readDatabaseConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = readEnv(DatabaseEnv, source);
  const problems = poolerProblems(env);
  // Either URL may carry a password; a published one is refused in production.
  for (const [name, url] of [
    ['DATABASE_URL', env.DATABASE_URL],
    ['DATABASE_DIRECT_URL', env.DATABASE_DIRECT_URL],
  ] as const) {
    const published = publishedPasswordProblem(name, url, source);
    if (published) problems.push(published);
  }
  if (problems.length > 0) throw new InvalidEnvironmentError(problems);
  return {
    url: env.DATABASE_URL,
    /** Where session-bound work connects: Postgres itself. */
    directUrl: env.DATABASE_DIRECT_URL ?? env.DATABASE_URL,
    pooler: env.DATABASE_POOLER,
    migrationsRun: env.DATABASE_MIGRATIONS_RUN,
    poolSize: env.DATABASE_POOL_SIZE,
    retryMs: env.DATABASE_RETRY_MS,
    startWaitMs: env.DATABASE_START_WAIT_MS,
    lockTimeoutMs: env.DATABASE_LOCK_TIMEOUT_MS,
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
  };
}

export const databaseConfig = registerAs('database', () => readDatabaseConfig());
export type DatabaseConfig = ConfigType<typeof databaseConfig>;
