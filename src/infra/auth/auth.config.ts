import { type ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../../config/env';

/**
 * Signs buyers' tokens when AUTH_TOKEN_SECRET is not set and NODE_ENV is not `production`: a
 * newcomer's `npm start` works, and the app says loudly that anyone can forge its tokens.
 */
export const DEV_TOKEN_SECRET = 'dev-only-token-secret-anyone-can-read-it-in-the-sources';

class AuthEnv {
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'must be at least 32 characters' })
  AUTH_TOKEN_SECRET?: string = undefined;
  /** How long a buyer's token is good for. */
  @IsInt() @Min(1) @Max(8_760) AUTH_TOKEN_TTL_HOURS: number = 720;
  @IsOptional() @IsString() NODE_ENV?: string = undefined;
}

export const authConfig = registerAs('auth', () => {
  const env = readEnv(AuthEnv);
  if (!env.AUTH_TOKEN_SECRET && env.NODE_ENV === 'production') {
    throw new InvalidEnvironmentError(['AUTH_TOKEN_SECRET: must be set when NODE_ENV is production']);
  }
  return {
    tokenSecret: env.AUTH_TOKEN_SECRET ?? DEV_TOKEN_SECRET,
    usesDevSecret: !env.AUTH_TOKEN_SECRET,
    tokenTtlSeconds: env.AUTH_TOKEN_TTL_HOURS * 3_600,
  };
});
export type AuthConfig = ConfigType<typeof authConfig>;
