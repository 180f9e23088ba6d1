import {
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { metricsConfig, type MetricsConfig } from './metrics.config';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Who may scrape: anyone, or (METRICS_TOKEN set) whoever sends that token as a bearer token. */
@Injectable()
export class MetricsAccess {
  private readonly token?: Buffer;

  constructor(@Inject(metricsConfig.KEY) readonly config: MetricsConfig) {
    if (config.token !== undefined) this.token = sha256(config.token);
  }

  /** Whether a request with this Authorization header may scrape. The comparison takes the same time whatever the guess. */
  allows(authorization: string | undefined): boolean {
    if (!this.token) return true;
    const [scheme, token, ...rest] = (authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !token || rest.length > 0) return false;
    return timingSafeEqual(sha256(token), this.token);
  }
}

/**
 * GET /metrics on the API's port: 404 when METRICS_PORT serves it elsewhere, 401 without the
 * token when METRICS_TOKEN is set. The CallerGuard leaves these routes to it (their access is
 * `metrics`): the scraper's token is neither a buyer's nor the operator's.
 */
@Injectable()
export class MetricsGuard implements CanActivate {
  constructor(private readonly access: MetricsAccess) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.access.config.port !== undefined) {
      throw new NotFoundException('Metrics are served on their own port (METRICS_PORT)');
    }
    if (!this.access.allows(context.switchToHttp().getRequest<Request>().headers.authorization)) {
      throw new UnauthorizedException('A scrape needs the metrics bearer token (METRICS_TOKEN)');
    }
    return true;
  }
}
