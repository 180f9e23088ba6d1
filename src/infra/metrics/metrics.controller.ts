import { applyDecorators, Controller, Get, Header, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ACCESS, type Access } from '../auth/access';
import { MetricsGuard } from './metrics.access';
import { MetricsRegistry } from './metrics.registry';

/** Anyone, or only whoever sends METRICS_TOKEN when it is set (MetricsGuard). */
const ForScrapers = () =>
  applyDecorators(
    SetMetadata(ACCESS, 'metrics' satisfies Access),
    UseGuards(MetricsGuard),
    ApiUnauthorizedResponse({ description: 'METRICS_TOKEN is set, and the bearer token is not it' }),
    ApiNotFoundResponse({ description: 'METRICS_PORT is set: /metrics is served there' }),
  );

@ApiTags('operations')
@ForScrapers()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly registry: MetricsRegistry) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition' })
  scrape(): Promise<string> {
    return this.registry.metrics();
  }
}
