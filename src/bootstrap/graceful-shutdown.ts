import { Logger } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { appConfig } from '../config/app.config';

/**
 * On SIGTERM or SIGINT: stop accepting requests and let those in flight finish, then close the
 * app, whose hooks stop the relay and workers (letting their current jobs end) before the pools
 * close. A second signal, or the grace period running out, exits at once.
 */
export function shutDownGracefully(app: INestApplication): void {
  const logger = new Logger('Shutdown');
  const graceMs = app.get<ReturnType<typeof appConfig>>(appConfig.KEY).shutdownGraceMs;
  let shuttingDown = false;

  const shutDown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    shuttingDown = true;
    logger.log(`${signal} received: closing HTTP, then workers, then connections`);
    const deadline = setTimeout(() => {
      logger.error(`Shutdown took longer than ${graceMs} ms: exiting`);
      process.exit(1);
    }, graceMs);
    deadline.unref();

    const server = app.getHttpServer() as Server;
    new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))
      .then(() => app.close())
      .then(() => {
        logger.log('Stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error(`Shutdown failed: ${String(error)}`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', shutDown);
  process.once('SIGINT', shutDown);
}
