import { type ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../../config/env';
import { publishedSecretProblem } from '../../config/published-secrets';

class AuthEnv {
  /** Unset: the deployment's own secret, made once and kept in Postgres (DeploymentSecret). */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters' })
  AUTH_TOKEN_SECRET?: string = undefined;
  /** How long a buyer's token is good for. */
  @IsInt() @Min(1) @Max(8_760) AUTH_TOKEN_TTL_HOURS: number = 720;
  /** How long a process trusts a buyer's status (blocked or not) that it read, for reads. */
  @IsInt() @Min(0) @Max(60_000) AUTH_BUYER_STATUS_CACHE_MS: number = 30_000;
}

export const authConfig = registerAs('auth', () => {
  const env = readEnv(AuthEnv);
  const published = publishedSecretProblem('AUTH_TOKEN_SECRET', env.AUTH_TOKEN_SECRET);
  if (published) throw new InvalidEnvironmentError([published]);
  return {
    /** Undefined: the deployment's secret signs the tokens. */
    tokenSecret: env.AUTH_TOKEN_SECRET,
    tokenTtlSeconds: env.AUTH_TOKEN_TTL_HOURS * 3_600,
    buyerStatusCacheMs: env.AUTH_BUYER_STATUS_CACHE_MS,
  };
});
export type AuthConfig = ConfigType<typeof authConfig>;
