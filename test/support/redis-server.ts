import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import IORedis from 'ioredis';
import { freePort } from './app-process';
import { eventually } from './eventually';

const hasLocalRedis = () => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * A Redis of the test's own, on a free port, for tests that break Redis (flush it, restart it):
 * the shared one is never disturbed. Uses the local redis-server binary, or Docker without it.
 * Like the shared one, it keeps nothing on disk, so a restart forgets every job.
 */
export class RedisServer {
  private process?: ChildProcess;
  private container?: string;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.boot();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private async boot(): Promise<void> {
    if (hasLocalRedis()) {
      this.process = spawn(
        'redis-server',
        ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
    } else {
      this.container = execFileSync(
        'docker',
        ['run', '--detach', '--rm', '--publish', `127.0.0.1:${this.port}:6379`, 'redis:7-alpine'],
        { encoding: 'utf8' },
      ).trim();
    }
    await eventually(() => this.command((client) => client.ping()), { timeoutMs: 30_000, intervalMs: 50 });
  }

  async command<T>(work: (client: IORedis) => Promise<T>): Promise<T> {
    const client = new IORedis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await work(client);
    } finally {
      client.disconnect();
    }
  }

  flushAll(): Promise<unknown> {
    return this.command((client) => client.flushall());
  }

  /** Gone: connections drop and nothing answers until `restart`. */
  async stop(): Promise<void> {
    if (this.process) {
      const exited = new Promise((resolve) => this.process!.once('exit', resolve));
      this.process.kill('SIGKILL');
      await exited;
      this.process = undefined;
    }
    if (this.container) {
      execFileSync('docker', ['kill', this.container], { stdio: 'ignore' });
      this.container = undefined;
    }
  }

  /** Back on the same port, empty, as a Redis without persistence comes back. */
  async restart(): Promise<void> {
    await this.stop();
    await this.boot();
  }
}
