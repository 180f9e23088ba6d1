import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';

/**
 * Who may call a route. `signed-in` (a buyer's token or the admin token) is what a route without
 * a decision gets: a new route is closed until someone opens it. `metrics` is the scrapers'
 * (anyone, or whoever holds METRICS_TOKEN when it is set), decided by the metrics' own guard.
 */
export type Access = 'public' | 'signed-in' | 'operator' | 'metrics';
export const ACCESS = 'access';

/** Anyone may call it; a bearer token, when sent, must still be valid. */
export const Public = () => SetMetadata(ACCESS, 'public' satisfies Access);

/** A buyer's token or the admin token; what a buyer may see is decided by the route. */
export const SignedIn = () =>
  applyDecorators(
    SetMetadata(ACCESS, 'signed-in' satisfies Access),
    ApiBearerAuth('buyer'),
    ApiBearerAuth('admin'),
    ApiUnauthorizedResponse({ description: 'No bearer token, or one that is not valid (forged, altered, expired)' }),
  );
