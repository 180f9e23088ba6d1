import type { NestExpressApplication } from '@nestjs/platform-express';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import path from 'node:path';

/** The page's files, served as they are: the same path from src/bootstrap/ and dist/bootstrap/. */
export const CONSOLE_DIR = path.resolve(__dirname, '..', '..', 'console');

/**
 * The console loads only its own scripts, styles and API: nothing inline, nothing external.
 * Swagger UI needs a looser policy, so the rest of the app keeps helmet's defaults.
 */
const consolePolicy = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
});
// The app is often served over plain HTTP (locally, behind a proxy): asking browsers to upgrade
// every request to HTTPS would break Swagger UI there.
const apiPolicy = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });

export const securityHeaders: RequestHandler = (req, res, next) =>
  (/^\/console(\/|$|\?)/.test(req.url) ? consolePolicy : apiPolicy)(req, res, next);

/** `GET /console`: the checkout console, a client of the public API and nothing more. */
export function serveConsole(app: NestExpressApplication): void {
  app.useStaticAssets(CONSOLE_DIR, { prefix: '/console', index: 'index.html', fallthrough: true, maxAge: 0 });
}
