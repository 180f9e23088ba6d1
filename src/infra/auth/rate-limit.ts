import { applyDecorators, type ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ThrottlerGuard, type ThrottlerModuleOptions } from '@nestjs/throttler';
import type { RateLimitConfig, RateLimitedAction } from './rate-limit.config';

const RATE_LIMITED = 'rate-limited';

/**
 * Limits how often one client (by address) may call this route within RATE_LIMIT_WINDOW_MS:
 * over the limit it gets 429 with Retry-After (seconds). The limit per action is configured;
 * 0 turns it off.
 */
export const RateLimited = (action: RateLimitedAction) =>
  applyDecorators(
    SetMetadata(RATE_LIMITED, action),
    UseGuards(ThrottlerGuard),
    ApiTooManyRequestsResponse({ description: 'Too many requests from this client; see Retry-After' }),
  );

/** The throttler's options: one window, and the limit of the action the route is marked with. */
export function throttlerOptions(config: RateLimitConfig, reflector: Reflector): ThrottlerModuleOptions {
  const limitOf = (context: ExecutionContext): number => {
    const action = reflector.get<RateLimitedAction | undefined>(RATE_LIMITED, context.getHandler());
    return action ? config.limits[action] : 0;
  };
  return {
    throttlers: [{ ttl: config.windowMs, limit: limitOf }],
    skipIf: (context) => limitOf(context) === 0,
    errorMessage: 'Too many requests from this client; retry after the number of seconds in Retry-After',
  };
}
