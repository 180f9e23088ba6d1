import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { MetricsAccess, MetricsGuard } from './metrics.access';
import { metricsConfig } from './metrics.config';
import { MetricsController } from './metrics.controller';
import { MetricsRegistry } from './metrics.registry';
import { MetricsServer } from './metrics.server';

@Global()
@Module({
  imports: [ConfigModule.forFeature(metricsConfig)],
  controllers: [MetricsController],
  providers: [MetricsRegistry, MetricsAccess, MetricsGuard, MetricsServer],
  exports: [MetricsRegistry],
})
export class MetricsModule {}
