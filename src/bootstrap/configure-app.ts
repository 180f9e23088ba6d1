import { ConfigType } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { RequestHandler } from 'express';
import { Logger } from 'nestjs-pino';
import { appConfig } from '../config/app.config';
import { correlationMiddleware } from '../infra/context/context.module';
import { errorBody } from '../infra/http/error-body';
import { HttpErrorFilter } from '../infra/http/http-error.filter';
import { requestLogging } from '../infra/logging/logging.module';
import { createValidationPipe } from '../infra/http/validation.pipe';
import { securityHeaders, serveConsole } from './console';

/**
 * JSON.parse gives `__proto__` as an ordinary key, and whatever copies the body onto an object
 * later may then replace that object's prototype: such keys are refused as the body is parsed.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) throw new SyntaxError(`the key "${key}" is not allowed`);
  return value;
}

/** A process without the `api` role still answers health checks and metric scrapes, and nothing else. */
const operationsOnly: RequestHandler = (req, res, next) => {
  if (/^\/(health|metrics)(\/|$|\?)/.test(req.url)) return next();
  res.status(404).json(errorBody(404, 'This process does not run the api role'));
};

/**
 * Everything about the HTTP surface that is not a route: used by main.ts and by the tests' app
 * helper, so that tests exercise exactly what runs in production.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<ConfigType<typeof appConfig>>(appConfig.KEY);
  app.useLogger(app.get(Logger));
  app.use(correlationMiddleware());
  app.use(requestLogging());
  if (!config.roles.has('api')) app.use(operationsOnly);
  app.use(securityHeaders);
  serveConsole(app);
  app.useBodyParser('json', { limit: config.httpBodyLimit, strict: true, reviver: refusePrototypeKeys });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new HttpErrorFilter());
  app.disable('x-powered-by');
  // Who the client is (req.ip, which the rate limits count by): X-Forwarded-For only from trusted proxies.
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Checkout with outbox and sagas')
      .setDescription(
        'A modular monolith whose checkout crosses four modules without a distributed transaction. ' +
          'Every response carries X-Correlation-Id; send one to follow a checkout through logs and timeline.',
      )
      .setVersion('1')
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token that POST /users answered' },
        'buyer',
      )
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN: the operator, who may do anything' },
        'admin',
      )
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return app;
}
