import { Controller, Get, HttpStatus, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { PostgresHealthIndicator, RedisHealthIndicator } from './health.indicators';

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly postgres: PostgresHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'Postgres and Redis answer' })
  @ApiServiceUnavailableResponse({ description: 'Something is down; `message` and `error` name it' })
  async check(@Res({ passthrough: true }) response: Response): Promise<HealthCheckResult & { message?: string }> {
    try {
      return await this.health.check([() => this.postgres.check(), () => this.redis.check()]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      response.status(HttpStatus.SERVICE_UNAVAILABLE);
      return { ...result, message: `down: ${Object.keys(result.error ?? {}).join(', ')}` };
    }
  }
}
