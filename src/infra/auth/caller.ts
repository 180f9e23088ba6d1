import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** Who sent a request: nobody in particular, a buyer (by their token), or the operator (ADMIN_TOKEN). */
export type Caller = { kind: 'anonymous' } | { kind: 'buyer'; userId: string } | { kind: 'operator' };

export const ANONYMOUS: Caller = { kind: 'anonymous' };

/** Set on the request by the CallerGuard, read by `@CurrentCaller()`. */
export interface RequestWithCaller {
  caller?: Caller;
}

/** The caller of this request, as the CallerGuard identified it. */
export const CurrentCaller = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller =>
    context.switchToHttp().getRequest<RequestWithCaller>().caller ?? ANONYMOUS,
);

/** The operator acts for anyone; a buyer only for themself. */
export function mayActFor(caller: Caller, userId: string): boolean {
  return caller.kind === 'operator' || (caller.kind === 'buyer' && caller.userId === userId.toLowerCase());
}
