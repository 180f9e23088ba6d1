import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { SharedReading } from '../metrics/shared-reading';
import { PostgresHealthIndicator, RedisHealthIndicator } from './health.indicators';

/**
 * How old the answer of `GET /health` may be, from the end of the check that found it: anyone may
 * call it, and a flood of calls then costs one check a second, not one each (issue 36).
 */
export const HEALTH_MAX_AGE_MS = 1_000;

/** What a check found: every part up, some down (terminus' report either way), or a fault of the check itself. */
export type HealthOutcome =
  { up: true; report: HealthCheckResult } | { up: false; report: HealthCheckResult } | { up: false; fault: unknown };

/**
 * Postgres, Redis and each queue's keys checked at most once every HEALTH_MAX_AGE_MS: the calls in
 * that time get the last outcome, up or down, and those that come while a check is under way
 * wait for it.
 */
@Injectable()
export class SharedHealthCheck {
  private readonly latest: SharedReading<HealthOutcome>;

  constructor(
    private readonly health: HealthCheckService,
    private readonly postgres: PostgresHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {
    this.latest = new SharedReading(() => this.run(), HEALTH_MAX_AGE_MS);
  }

  async outcome(): Promise<HealthOutcome> {
    return (await this.latest.get()) ?? { up: false, fault: new Error('the health check answered nothing') };
  }

  private async run(): Promise<HealthOutcome> {
    try {
      const report = await this.health.check([
        () => this.postgres.check(),
        () => this.redis.check(),
        () => this.redis.queues(),
      ]);
      return { up: true, report };
    } catch (error) {
      if (error instanceof ServiceUnavailableException)
        return { up: false, report: error.getResponse() as HealthCheckResult };
      return { up: false, fault: error };
    }
  }
}
