import type { DynamicModule, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Lab } from './lab/lab';
import { requestValidation } from './requests';

/**
 * A participant as a Nest app, not yet listening (its database must be migrated): every body
 * checked for `who`, and its lab's gate ahead of every route.
 */
export async function createParticipantApp(
  module: DynamicModule,
  who: string,
  logger: LogLevel[] = ['log', 'warn', 'error'],
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, { logger });
  app.useGlobalPipes(requestValidation(who));
  app.use(app.get(Lab).gate);
  return app;
}
