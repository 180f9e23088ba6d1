import {
  applyDecorators,
  SetMetadata,
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  NotFoundException,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { appConfig, type AppConfig } from '../../config/app.config';
import { ACCESS, type Access } from '../auth/access';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether a bearer token is the admin token, in the same time whatever the guess; undefined when
 * ADMIN_TOKEN is not set.
 */
export function adminTokenMatcher(adminToken: string | undefined): ((token: string) => boolean) | undefined {
  if (!adminToken) return undefined;
  const expected = digest(adminToken);
  return (token) => timingSafeEqual(digest(token), expected);
}

/**
 * `/admin/*` needs `Authorization: Bearer $ADMIN_TOKEN`. Without a configured token the admin
 * surface does not exist (404). The comparison takes the same time whatever the guess.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly isAdminToken?: (token: string) => boolean;

  constructor(@Inject(appConfig.KEY) config: AppConfig) {
    this.isAdminToken = adminTokenMatcher(config.adminToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const [scheme, token] = header.split(' ');
    return this.authorize(scheme?.toLowerCase() === 'bearer' ? token : undefined);
  }

  /** Whether this is the admin token: the same check for routes mounted as Express middleware. */
  authorize(token: string | undefined): boolean {
    if (!this.isAdminToken) throw new NotFoundException('Admin endpoints are disabled: ADMIN_TOKEN is not set');
    if (!token || !this.isAdminToken(token)) {
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
