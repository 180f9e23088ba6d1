import { Global, Module } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { appConfig, AppConfig } from '../../config/app.config';
import { currentContextIds } from '../context/message-context';

/** Where log lines go. Tests replace it to read the lines; the app writes JSON to stdout. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

@Global()
@Module({
  providers: [{ provide: LOG_DESTINATION, useFactory: () => pino.destination({ dest: 1, sync: false }) }],
  exports: [LOG_DESTINATION],
})
class LogDestinationModule {}

/**
 * One log line per response, whatever answered it. Mounted by configureApp before the body
 * parser: Nest mounts its modules' middleware after it, so a request the parser refuses (malformed
 * JSON, 413) would never reach a logger mounted by nestjs-pino.
 */
export function requestLogging(): RequestHandler {
  if (!PinoLogger.root) throw new Error('requestLogging() needs the app logger: call app.useLogger() first');
  return pinoHttp({
    logger: PinoLogger.root,
    // Health probes and scrapes would drown everything else.
    autoLogging: { ignore: (req: IncomingMessage) => /^\/(health|metrics)\b/.test(req.url ?? '') },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
      error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}

/**
 * JSON logs (pino); every line carries the correlation id of the work it belongs to. nestjs-pino
 * gives request-scoped loggers to the code; the request lines themselves come from requestLogging().
 */
@Module({
  imports: [
    LogDestinationModule,
    LoggerModule.forRootAsync({
      inject: [appConfig.KEY, LOG_DESTINATION],
      useFactory: (config: AppConfig, destination: pino.DestinationStream) => ({
        pinoHttp: [
          {
            level: config.logLevel,
            mixin: currentContextIds,
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            autoLogging: false,
          },
          destination,
        ],
      }),
    }),
  ],
})
export class LoggingModule {}
