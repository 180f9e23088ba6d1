import {
  applyDecorators,
  SetMetadata,
  type CanActivate,
  type ExecutionContext,
  Injectable,
  NotFoundException,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { ACCESS, type Access } from '../auth/access';
import { OperatorToken } from './operator-token';

/**
 * `/admin/*` needs `Authorization: Bearer <operator token>`. Without one (ADMIN_TOKEN unset) the
 * admin surface does not exist (404). The comparison takes the same time whatever the guess.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly operator: OperatorToken) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const [scheme, token] = header.split(' ');
    return this.authorize(scheme?.toLowerCase() === 'bearer' ? token : undefined);
  }

  /** Whether this is the operator's token: the same check for routes mounted as Express middleware. */
  async authorize(token: string | undefined): Promise<boolean> {
    if (!this.operator.enabled) throw new NotFoundException('Admin endpoints are disabled: ADMIN_TOKEN is not set');
    if (!token || !(await this.operator.matches(token))) {
      throw new UnauthorizedException('A valid admin bearer token is required');
    }
    return true;
  }
}

/** Marks a controller or route as an operator's: bearer token required. */
export const AdminOnly = () =>
  applyDecorators(
    SetMetadata(ACCESS, 'operator' satisfies Access),
    UseGuards(AdminGuard),
    ApiBearerAuth('admin'),
    ApiUnauthorizedResponse({ description: 'Missing or wrong bearer token' }),
    ApiNotFoundResponse({ description: 'Unknown id, or ADMIN_TOKEN not set' }),
  );
