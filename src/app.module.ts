import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ScheduleModule } from '@nestjs/schedule';
import { configFactories } from './config';
import { AuthModule } from './infra/auth/auth.module';
import { ContextModule } from './infra/context/context.module';
import { DatabaseModule } from './infra/database/database.module';
import { FaultsModule } from './infra/faults/faults.module';
import { HealthModule } from './infra/health/health.module';
import { LoggingModule } from './infra/logging/logging.module';
import { MetricsModule } from './infra/metrics/metrics.module';
import { OutboxModule } from './infra/outbox/outbox.module';
import { RedisModule } from './infra/redis/redis.module';
import { RolesModule } from './infra/roles/roles.module';
import { SchedulingModule } from './infra/scheduling/scheduling.module';
import { TracingModule } from './infra/tracing/tracing.module';
import { BillingModule } from './modules/billing';
import { CheckoutModule } from './modules/checkout';
import { ContentModule } from './modules/content';
import { IdentityModule } from './modules/identity';
import { NotificationsModule } from './modules/notifications';
import { OperationsModule } from './operations/operations.module';
import { QueueBoardModule } from './operations/queue-board.module';

/** The composition root: shared infrastructure first, then the business modules. */
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: configFactories }),
    ScheduleModule.forRoot(),
    TracingModule,
    ContextModule,
    LoggingModule,
    RolesModule,
    SchedulingModule,
    DatabaseModule.forRoot(),
    RedisModule,
    MetricsModule,
    AuthModule,
    FaultsModule,
    HealthModule,
    OutboxModule,
    IdentityModule,
    BillingModule,
    ContentModule,
    NotificationsModule,
    CheckoutModule,
    OperationsModule,
    QueueBoardModule,
  ],
})
export class AppModule {}
