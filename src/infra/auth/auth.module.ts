import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { OperatorToken } from '../admin/operator-token';
import { QueuePrefix } from '../outbox/queue-prefix';
import { RedisConnections } from '../redis/redis.connections';
import { DatabaseModule } from '../database/database.module';
import { authConfig } from './auth.config';
import { BuyerStanding } from './buyer-standing';
import { BuyerTokens } from './buyer-tokens';
import { CallerGuard } from './caller.guard';
import { CreateAuthSchema1795970006000 } from './database/migrations/1795970006000-create-auth-schema';
import { DeploymentSecret } from './deployment-secret';
import { throttlerOptions } from './rate-limit';
import { rateLimitConfig, type RateLimitConfig } from './rate-limit.config';
import { SharedRateLimitStore } from './rate-limit.store';

/** The counts' store; connected at start when a limit is on, so that the first calls count in Redis. */
function sharedStore(config: RateLimitConfig, redis: RedisConnections, prefix: QueuePrefix): SharedRateLimitStore {
  const store = new SharedRateLimitStore(redis, prefix);
  return Object.values(config.limits).some((limit) => limit > 0) ? store.connect() : store;
}

/**
 * Who may call what: buyers' tokens (ADR 0046) signed with the deployment's secret (ADR 0066),
 * the operator's token (ADR 0067), the guard that reads them (ADR 0047), and the rate limits (ADR 0050, ADR 0073).
 */
@Global()
@Module({
  imports: [
    ConfigModule.forFeature(authConfig),
    DatabaseModule.forFeature({ migrations: [CreateAuthSchema1795970006000] }),
    // The secret is given with each call: it may be the deployment's, read from Postgres.
    JwtModule.register({}),
    ThrottlerModule.forRootAsync({
      imports: [ConfigModule.forFeature(rateLimitConfig)],
      inject: [rateLimitConfig.KEY, Reflector, RedisConnections, QueuePrefix],
      useFactory: (config: RateLimitConfig, reflector: Reflector, redis: RedisConnections, prefix: QueuePrefix) =>
        throttlerOptions(config, reflector, sharedStore(config, redis, prefix)),
    }),
  ],
  providers: [
    DeploymentSecret,
    BuyerTokens,
    BuyerStanding,
    OperatorToken,
    // The rate limits first: a flood is refused before its tokens are read (which may ask Postgres).
    { provide: APP_GUARD, useClass: ThrottlerGuard },
    { provide: APP_GUARD, useClass: CallerGuard },
  ],
  exports: [BuyerTokens, OperatorToken],
})
export class AuthModule {}
