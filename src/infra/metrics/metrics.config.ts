import { type ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../../config/env';
import { publishedSecretProblem } from '../../config/published-secrets';

class MetricsEnv {
  /** Set: a scrape must send `Authorization: Bearer <it>` (401 otherwise). Unset: anyone may scrape. */
  @IsOptional() @IsString() @MinLength(16, { message: 'must be at least 16 characters' }) METRICS_TOKEN?: string =
    undefined;
  /** Set: /metrics is served on this port alone (0: any free one), and the API's port answers 404 for it. */
  @IsOptional() @IsInt() @Min(0) @Max(65535) METRICS_PORT?: number = undefined;
  /** How old a figure read from Postgres or Redis may be when a scrape shows it (0: read at each scrape). */
  @IsInt() @Min(0) @Max(300_000) METRICS_READ_INTERVAL_MS: number = 5_000;
}

export const metricsConfig = registerAs('metrics', () => {
  const env = readEnv(MetricsEnv);
  const problem = publishedSecretProblem('METRICS_TOKEN', env.METRICS_TOKEN);
  if (problem) throw new InvalidEnvironmentError([problem]);
  return { token: env.METRICS_TOKEN, port: env.METRICS_PORT, readIntervalMs: env.METRICS_READ_INTERVAL_MS };
});
export type MetricsConfig = ConfigType<typeof metricsConfig>;
