import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { ThrottlerModule } from '@nestjs/throttler';
import { authConfig, type AuthConfig } from './auth.config';
import { BuyerTokens } from './buyer-tokens';
import { CallerGuard } from './caller.guard';
import { throttlerOptions } from './rate-limit';
import { rateLimitConfig, type RateLimitConfig } from './rate-limit.config';

/**
 * Who may call what: buyers' tokens (ADR 0046), the guard that reads them (ADR 0047), and the
 * rate limits (ADR 0050).
 */
@Global()
@Module({
  imports: [
    ConfigModule.forFeature(authConfig),
    JwtModule.registerAsync({
      imports: [ConfigModule.forFeature(authConfig)],
      inject: [authConfig.KEY],
      useFactory: (config: AuthConfig) => ({ secret: config.tokenSecret }),
    }),
    ThrottlerModule.forRootAsync({
      imports: [ConfigModule.forFeature(rateLimitConfig)],
      inject: [rateLimitConfig.KEY, Reflector],
      useFactory: (config: RateLimitConfig, reflector: Reflector) => throttlerOptions(config, reflector),
    }),
  ],
  providers: [BuyerTokens, { provide: APP_GUARD, useClass: CallerGuard }],
  exports: [BuyerTokens],
})
export class AuthModule {}
