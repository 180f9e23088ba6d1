import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * Forwards a local port to a real service. Closing the proxy cuts every connection and refuses new
 * ones, which is what a service that went down looks like to its clients; the real service itself
 * is never disturbed, so other tests go on using it. `repoint` sends it elsewhere, as a virtual IP
 * moved or an HAProxy backend switched is to its clients: one address, another server behind it.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly port: number,
    private target: { host: string; port: number },
  ) {}

  /**
   * From now on, new connections go to `target`; those open are cut (as HAProxy's
   * `on-marked-down shutdown-sessions` does), so that no client goes on talking to the old server.
   */
  repoint(target: { host: string; port: number }): void {
    this.target = target;
    this.sockets.forEach((socket) => socket.destroy());
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  async close(): Promise<void> {
    this.sockets.forEach((socket) => socket.destroy());
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
