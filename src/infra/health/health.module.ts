import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { SharedHealthCheck } from './health.check';
import { HealthController } from './health.controller';
import { PostgresHealthIndicator, RedisHealthIndicator } from './health.indicators';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [PostgresHealthIndicator, RedisHealthIndicator, SharedHealthCheck],
})
export class HealthModule {}
