import { type ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { readEnv } from '../../config/env';

class RateLimitEnv {
  @IsInt() @Min(1_000) @Max(86_400_000) RATE_LIMIT_WINDOW_MS: number = 60_000;
  /** `POST /users` per client and window; 0 turns the limit off. */
  @IsInt() @Min(0) @Max(1_000_000) RATE_LIMIT_SIGNUPS: number = 10;
  /** `POST /checkouts` per client and window; 0 turns the limit off. */
  @IsInt() @Min(0) @Max(1_000_000) RATE_LIMIT_CHECKOUTS: number = 60;
  /** Every GET (and HEAD) route of the API together, per client and window; 0 turns the limit off. */
  @IsInt() @Min(0) @Max(1_000_000) RATE_LIMIT_READS: number = 600;
}

export const rateLimitConfig = registerAs('rateLimit', () => {
  const env = readEnv(RateLimitEnv);
  return {
    windowMs: env.RATE_LIMIT_WINDOW_MS,
    limits: { signups: env.RATE_LIMIT_SIGNUPS, checkouts: env.RATE_LIMIT_CHECKOUTS, reads: env.RATE_LIMIT_READS },
  };
});
export type RateLimitConfig = ConfigType<typeof rateLimitConfig>;
export type RateLimitedAction = keyof RateLimitConfig['limits'];
