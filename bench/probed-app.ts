import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../test/support/app-process';
import type { ProbeCounters } from './app-probe';
import { benchParticipants } from './bench-participants';
import { BENCH_DATABASE_URL, until } from './bench-env';

const root = path.resolve(__dirname, '..');

/** The operator token of every app a benchmark starts (published: a production process refuses it). */
export const ADMIN_TOKEN = 'bench-admin-token-0123456789';

/**
 * What every app a benchmark starts runs with, besides its database and Redis: a quiet log, the
 * operator token, and no rate limits (a load generator is one client at one address: the
 * per-client limits would refuse it).
 */
const PROBED_APP_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  ADMIN_TOKEN,
  RATE_LIMIT_SIGNUPS: '0',
  RATE_LIMIT_CHECKOUTS: '0',
  RATE_LIMIT_READS: '0',
};

/**
 * The app as users run it, one operating-system process started from the sources, with
 * bench/app-probe.ts loaded before it: its counters on request, over the process's IPC channel.
 */
export class ProbedApp {
  private readonly output: string[] = [];
  private readonly pending = new Map<number, { resolve: (body: unknown) => void; reject: (error: Error) => void }>();
  private nextRequest = 1;
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    const keep = (chunk: Buffer) => {
      this.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      this.output.splice(0, Math.max(0, this.output.length - 50));
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('message', (message: { probe?: number; body?: unknown; error?: string }) => {
      const waiting = message.probe === undefined ? undefined : this.pending.get(message.probe);
      if (!waiting) return;
      this.pending.delete(message.probe!);
      if (message.error) waiting.reject(new Error(message.error));
      else waiting.resolve(message.body);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * Starts the app (or another entry point, such as a peer's checkout) on the bench database with
   * PROBED_APP_ENV and `env` (its Redis, at least), and waits until its /health answers 200.
   */
  static async start(env: Record<string, string>, entry = 'src/main.ts'): Promise<ProbedApp> {
    const port = await freePort();
    const child = spawn(process.execPath, ['-r', '@swc-node/register', '-r', './bench/app-probe.ts', entry], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: BENCH_DATABASE_URL,
        ...(await benchParticipants()),
        ...PROBED_APP_ENV,
        ...env,
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const app = new ProbedApp(child, `http://127.0.0.1:${port}`);
    let exitCode: number | null | undefined;
    void app.exited.then((code) => (exitCode = code));
    await until(
      async () => {
        if (exitCode !== undefined) throw new Error(`the app exited with ${exitCode}:\n${app.tail()}`);
        const response = await fetch(`${app.url}/health`).catch(() => undefined);
        return response?.status === 200;
      },
      120_000,
      200,
    );
    return app;
  }

  private ask<T>(request: Record<string, unknown>): Promise<T> {
    const probe = this.nextRequest++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(probe, { resolve: resolve as (body: unknown) => void, reject });
      this.child.send({ ...request, probe });
    });
  }

  counters(): Promise<ProbeCounters> {
    return this.ask({ ask: 'counters' });
  }

  /** SIGTERM, as a process manager stops it; SIGKILL if it is still there after the grace. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    this.child.kill('SIGTERM');
    const killed = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(killed);
  }

  tail(lines = 20): string {
    return this.output.slice(-lines).join('\n');
  }
}
