import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, Matches, Max, Min } from 'class-validator';
import { EnvBoolean, InvalidEnvironmentError, readEnv } from './env';
import { publishedPasswordProblem } from './published-secrets';

class DatabaseEnv {
  @Matches(/^postgres(ql)?:\/\/[^\s/]+\/[^\s/?]+(\?\S*)?$/, {
    message:
      'must be a postgres:// URL with a database name, e.g. postgres://postgres:postgres@localhost:5432/checkout',
  })
  DATABASE_URL: string = 'postgres://postgres:postgres@localhost:5432/checkout';
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) DATABASE_MIGRATIONS_RUN: boolean = true;
  @IsInt() @Min(1) @Max(200) DATABASE_POOL_SIZE: number = 10;
  @IsInt() @Min(100) @Max(60_000) DATABASE_RETRY_MS: number = 2_000;
  /** How long a statement of the app waits for a lock before it gives up (0: as long as it takes). */
  @IsInt() @Min(0) @Max(600_000) DATABASE_LOCK_TIMEOUT_MS: number = 5_000;
  /** How long one statement of the app may run (0: as long as it takes). */
  @IsInt() @Min(0) @Max(600_000) DATABASE_STATEMENT_TIMEOUT_MS: number = 15_000;
  /** Prepare each statement once per connection (false behind a pooler that moves sessions, ADR 0062). */
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) DATABASE_PREPARED_STATEMENTS: boolean = true;
}

export const databaseConfig = registerAs('database', () => {
  const env = readEnv(DatabaseEnv);
  const published = publishedPasswordProblem('DATABASE_URL', env.DATABASE_URL);
  if (published) throw new InvalidEnvironmentError([published]);
  return {
    url: env.DATABASE_URL,
    migrationsRun: env.DATABASE_MIGRATIONS_RUN,
    poolSize: env.DATABASE_POOL_SIZE,
    retryMs: env.DATABASE_RETRY_MS,
    lockTimeoutMs: env.DATABASE_LOCK_TIMEOUT_MS,
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
  };
});
export type DatabaseConfig = ConfigType<typeof databaseConfig>;
