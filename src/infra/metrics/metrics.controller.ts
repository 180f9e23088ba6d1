import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/access';
import { MetricsRegistry } from './metrics.registry';

@ApiTags('operations')
@Public()
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
