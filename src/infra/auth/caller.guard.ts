import { type CanActivate, type ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { OperatorToken } from '../admin/operator-token';
import { ACCESS, type Access } from './access';
import { BuyerStanding } from './buyer-standing';
import { BuyerTokens } from './buyer-tokens';
import { ANONYMOUS, type Caller, type RequestWithCaller } from './caller';

/**
 * Runs before every route: says who the caller is (anonymous, a buyer, the operator) and turns
 * away anonymous callers from routes that need a token. A token that is sent but not valid is
 * refused everywhere, so that a client learns at once that it holds a bad one. Operators' routes
 * (`@AdminOnly()`) are left to the AdminGuard, which answers 404 when ADMIN_TOKEN is not set, and
 * /metrics to the MetricsGuard (a scraper's token is neither a buyer's nor the operator's).
 */
@Injectable()
export class CallerGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: BuyerTokens,
    private readonly operator: OperatorToken,
    private readonly standing: BuyerStanding,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const access =
      this.reflector.getAllAndOverride<Access | undefined>(ACCESS, [context.getHandler(), context.getClass()]) ??
      'signed-in';
    if (access === 'operator' || access === 'metrics') return true;
    const request = context.switchToHttp().getRequest<Request & RequestWithCaller>();
    const caller = await this.identify(request.headers.authorization);
    request.caller = caller;
    // A blocked buyer's token stops working: at once for what writes, within the cache for reads.
    if (caller.kind === 'buyer') await this.standing.check(caller.userId, !['GET', 'HEAD'].includes(request.method));
    if (access === 'signed-in' && caller.kind === 'anonymous') {
      throw new UnauthorizedException(
        'A bearer token is required: the token that POST /users answered, or the admin token',
      );
    }
    return true;
  }

  private async identify(header: string | undefined): Promise<Caller> {
    if (header === undefined) return ANONYMOUS;
    const [scheme, token, ...rest] = header.split(' ');
    if (scheme?.toLowerCase() === 'bearer' && token && rest.length === 0) {
      if (await this.operator.matches(token)) return { kind: 'operator' };
      const userId = await this.tokens.verify(token);
      if (userId) return { kind: 'buyer', userId };
    }
    throw new UnauthorizedException('The bearer token is not valid: forged, altered or expired');
  }
}
