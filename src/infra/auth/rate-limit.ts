import { applyDecorators, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import type { RateLimitConfig, RateLimitedAction } from './rate-limit.config';
import { bucketOf } from './rate-limit.store';

const RATE_LIMITED = 'rate-limited';

/** The calls that write and are limited each on its own; every read shares the `reads` limit. */
type WriteAction = Exclude<RateLimitedAction, 'reads'>;

/**
 * Limits how often one client (by address: see TRUST_PROXY) may call this route within
 * RATE_LIMIT_WINDOW_MS, counted for the whole deployment: over the limit it gets 429 with
 * Retry-After (seconds). The limit per action is configured; 0 turns it off. GET routes need no
 * mark: they share the reads limit.
 */
export const RateLimited = (action: WriteAction) =>
  applyDecorators(
    SetMetadata(RATE_LIMITED, action),
    ApiTooManyRequestsResponse({ description: 'Too many requests from this client; see Retry-After' }),
  );

/** The action a call counts against: its route's mark, `reads` for any GET or HEAD, none otherwise. */
function actionOf(context: ExecutionContext, reflector: Reflector): RateLimitedAction | undefined {
  if (context.getType() !== 'http') return undefined;
  const marked = reflector.get<WriteAction | undefined>(RATE_LIMITED, context.getHandler());
  if (marked) return marked;
  const { method } = context.switchToHttp().getRequest<Request>();
  return method === 'GET' || method === 'HEAD' ? 'reads' : undefined;
}

/**
 * The throttler's options: one window; the limit of the action the call counts against; one
 * bucket per action and client (every read route shares the client's reads bucket); the counts
 * in the deployment's Redis (`storage`).
 */
export function throttlerOptions(
  config: RateLimitConfig,
  reflector: Reflector,
  storage: ThrottlerStorage,
): ThrottlerModuleOptions {
  const limitOf = (context: ExecutionContext): number => {
    const action = actionOf(context, reflector);
    return action ? config.limits[action] : 0;
  };
  return {
    throttlers: [{ ttl: config.windowMs, limit: limitOf }],
    skipIf: (context) => limitOf(context) === 0,
    generateKey: (context, client) => bucketOf(actionOf(context, reflector)!, client),
    storage,
    errorMessage: 'Too many requests from this client; retry after the number of seconds in Retry-After',
  };
}
