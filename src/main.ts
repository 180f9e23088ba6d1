import './infra/tracing/tracing.start';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module';
import { checkEnvironment } from './bootstrap/check-environment';
import { configureApp } from './bootstrap/configure-app';
import { shutDownGracefully } from './bootstrap/graceful-shutdown';
import { listeningMessage } from './bootstrap/listening-message';
import { appConfig } from './config/app.config';
import { InvalidEnvironmentError } from './config/env';

async function bootstrap(): Promise<void> {
  await checkEnvironment(AppModule);
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bodyParser: false, bufferLogs: true });
  configureApp(app);
  shutDownGracefully(app);
  const { port, roles } = appConfig();
  await app.listen(port);
  // The port actually bound: PORT=0 asks for any free one.
  const bound = (app.getHttpServer().address() as AddressInfo).port;
  new Logger('Bootstrap').log(listeningMessage(bound, roles));
}

bootstrap().catch((error: unknown) => {
  // The logger may not exist yet, so this one line goes straight to stderr.
  console.error(error instanceof InvalidEnvironmentError ? error.message : error);
  process.exit(1);
});
