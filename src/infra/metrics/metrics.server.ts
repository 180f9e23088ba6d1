import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MetricsAccess } from './metrics.access';
import { MetricsRegistry } from './metrics.registry';

/**
 * /metrics on a port of its own (METRICS_PORT), for a scraper on a network the public does not
 * reach: nothing else is served there, and METRICS_TOKEN, when set, is asked for there too.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly access: MetricsAccess,
    private readonly registry: MetricsRegistry,
  ) {}

  /** The port it listens on, once started; undefined without METRICS_PORT. */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.access.config.port;
    if (port === undefined) return;
    const server = createServer((request, response) => {
      const answer = (status: number, body: string, type = 'application/json') =>
        response.writeHead(status, { 'content-type': type }).end(body);
      const error = (status: number, message: string) =>
        answer(status, JSON.stringify({ statusCode: status, message }));
      if (request.method !== 'GET' || new URL(request.url ?? '/', 'http://metrics').pathname !== '/metrics') {
        return error(404, 'Only GET /metrics is served here');
      }
      if (!this.access.allows(request.headers.authorization)) {
        return error(401, 'A scrape needs the metrics bearer token (METRICS_TOKEN)');
      }
      this.registry.metrics().then(
        (text) => answer(200, text, this.registry.contentType),
        () => error(500, 'The metrics could not be gathered'),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => resolve());
    });
    this.server = server;
    this.logger.log(`Metrics on port ${this.port} (GET /metrics)`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
