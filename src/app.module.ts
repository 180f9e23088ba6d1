import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { configFactories } from './config';
import { ContextModule } from './infra/context/context.module';
import { DatabaseModule } from './infra/database/database.module';
import { HealthModule } from './infra/health/health.module';
import { LoggingModule } from './infra/logging/logging.module';
import { OutboxModule } from './infra/outbox/outbox.module';
import { RedisModule } from './infra/redis/redis.module';
import { BillingModule } from './modules/billing';
import { CheckoutModule } from './modules/checkout';
import { ContentModule } from './modules/content';
import { IdentityModule } from './modules/identity';
import { NotificationsModule } from './modules/notifications';

/** The composition root: shared infrastructure first, then the business modules. */
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: configFactories }),
    ContextModule,
    LoggingModule,
    DatabaseModule.forRoot(),
    RedisModule,
    HealthModule,
    OutboxModule,
    IdentityModule,
    BillingModule,
    ContentModule,
    NotificationsModule,
    CheckoutModule,
  ],
})
export class AppModule {}
