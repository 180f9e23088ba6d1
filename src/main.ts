import './infra/tracing/tracing.start';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './bootstrap/configure-app';
import { shutDownGracefully } from './bootstrap/graceful-shutdown';
import { configFactories } from './config';
import { appConfig } from './config/app.config';
import { InvalidEnvironmentError } from './config/env';

/** Every variable is checked before anything starts, and all problems are reported at once. */
function checkEnvironment(): void {
  const problems = configFactories.flatMap((load) => {
    try {
      load();
      return [];
    } catch (error) {
      if (error instanceof InvalidEnvironmentError) return error.problems;
      throw error;
    }
  });
  if (problems.length > 0) throw new InvalidEnvironmentError(problems);
}

async function bootstrap(): Promise<void> {
  checkEnvironment();
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bodyParser: false, bufferLogs: true });
  configureApp(app);
  shutDownGracefully(app);
  await app.listen(appConfig().port);
}

bootstrap().catch((error: unknown) => {
  // The logger may not exist yet, so this one line goes straight to stderr.
  console.error(error instanceof InvalidEnvironmentError ? error.message : error);
  process.exit(1);
});
