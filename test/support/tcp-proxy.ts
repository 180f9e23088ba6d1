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
  /** Each reads what the clients send, chunk by chunk, as it passes. */
  private readonly taps = new Set<(chunk: string, from: Socket) => void>();

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

  /** `url` (of the service behind) with this proxy's port: the same service, reached through the proxy. */
  urlOf(url: string): string {
    const moved = new URL(url);
    moved.port = String(this.port);
    return moved.toString();
  }

  /**
   * From now on, how often `text` passes from the clients to the service (a statement, a command
   * as the protocol spells it), case aside: what the clients asked of the service, counted where
   * it reaches it.
   */
  countSent(text: string): () => number {
    const needle = text.toLowerCase();
    // The end of each connection's last chunk, in case `text` straddles two chunks.
    const tails = new WeakMap<Socket, string>();
    let count = 0;
    this.taps.add((chunk, from) => {
      const seen = (tails.get(from) ?? '') + chunk.toLowerCase();
      count += seen.split(needle).length - 1;
      tails.set(from, seen.slice(seen.length - needle.length + 1));
    });
    return () => count;
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.on('data', (chunk: Buffer) => this.taps.forEach((tap) => tap(chunk.toString('latin1'), client)));
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
