import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, Matches, Max, Min } from 'class-validator';
import { EnvBoolean, readEnv } from './env';

class DatabaseEnv {
  @Matches(/^postgres(ql)?:\/\/[^\s/]+\/[^\s/?]+(\?\S*)?$/, {
    message:
      'must be a postgres:// URL with a database name, e.g. postgres://postgres:postgres@localhost:5432/checkout',
  })
  DATABASE_URL: string = 'postgres://postgres:postgres@localhost:5432/checkout';
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) DATABASE_MIGRATIONS_RUN: boolean = true;
  @IsInt() @Min(1) @Max(200) DATABASE_POOL_SIZE: number = 10;
  @IsInt() @Min(100) @Max(60_000) DATABASE_RETRY_MS: number = 2_000;
}

export const databaseConfig = registerAs('database', () => {
  const env = readEnv(DatabaseEnv);
  return {
    url: env.DATABASE_URL,
    migrationsRun: env.DATABASE_MIGRATIONS_RUN,
    poolSize: env.DATABASE_POOL_SIZE,
    retryMs: env.DATABASE_RETRY_MS,
  };
});
export type DatabaseConfig = ConfigType<typeof databaseConfig>;
