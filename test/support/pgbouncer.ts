import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './app-process';
import { eventually } from './eventually';
import { TEST_DATABASE_URL } from './test-env';

export const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

export interface PgBouncerOptions {
  /** transaction (the default) or session. */
  poolMode?: 'transaction' | 'session';
  /** Startup parameters it accepts and drops, besides extra_float_digits (pg sends none by default). */
  ignoreStartupParameters?: string[];
  /** Server connections per database and user. */
  poolSize?: number;
}

/**
 * PgBouncer (Debian's 1.18) of the test's own, on a free port, in front of the machine's Postgres:
 * every database name goes to the same name there, as the user postgres, with no password
 * (auth_type trust, its one user in an auth file of its own). Its files live in a temporary
 * directory that `stop` removes. PgBouncer refuses to run as root: as root, it runs as postgres.
 */
export class PgBouncer {
  private process?: ChildProcess;
  readonly log: string[] = [];

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly config: string,
  ) {}

  static async start(options: PgBouncerOptions = {}): Promise<PgBouncer> {
    const server = new URL(TEST_DATABASE_URL);
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
    const config = path.join(dir, 'pgbouncer.ini');
    writeFileSync(path.join(dir, 'users.txt'), `"${server.username || 'postgres'}" ""\n`);
    writeFileSync(
      config,
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${path.join(dir, 'users.txt')}`,
        `admin_users = ${server.username || 'postgres'}`,
        `pool_mode = ${options.poolMode ?? 'transaction'}`,
        `default_pool_size = ${options.poolSize ?? 20}`,
        'max_client_conn = 500',
        `ignore_startup_parameters = ${['extra_float_digits', ...(options.ignoreStartupParameters ?? [])].join(',')}`,
        `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
        // Logged to stderr, kept for the one who reads a failure.
        'logfile =',
        'log_connections = 0',
        'log_disconnections = 0',
        '',
      ].join('\n'),
    );
    const bouncer = new PgBouncer(port, dir, config);
    await bouncer.boot();
    return bouncer;
  }

  /** The URL of `database` through this pooler (the database's URL with this port). */
  urlOf(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  private async boot(): Promise<void> {
    const root = process.getuid?.() === 0;
    if (root) {
      // PgBouncer will not run as root: it runs as postgres, which must read its files.
      const { uid, gid } = postgresIds();
      [this.dir, path.join(this.dir, 'users.txt'), this.config].forEach((file) => chownSync(file, uid, gid));
    }
    const [command, args] = root
      ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, this.config]]
      : [PGBOUNCER, [this.config]];
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer) => this.log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.process = child;
    let exited = false;
    child.once('exit', () => (exited = true));
    await eventually(
      async () => {
        if (exited) throw new Error(`pgbouncer exited:\n${this.log.join('\n')}`);
        const client = new Client({
          connectionString: this.urlOf(TEST_DATABASE_URL.replace(/\/[^/]*$/, '/pgbouncer')),
        });
        client.on('error', () => undefined);
        await client.connect();
        await client.end();
      },
      { timeoutMs: 15_000, intervalMs: 50, what: 'pgbouncer to answer' },
    );
  }

  /** Gone at once (SIGKILL): its clients' connections drop, and their transactions roll back. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // runuser forwards the signal it gets to pgbouncer, but SIGKILL cannot be forwarded: kill pgbouncer itself.
    killByPidFile(path.join(this.dir, 'pgbouncer.pid'));
    child.kill('SIGKILL');
    await exited;
    this.process = undefined;
  }

  /** Stops it and removes its files. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('PgBouncer will not run as root, and there is no user postgres to run it as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function killByPidFile(file: string): void {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (pid > 0) process.kill(pid, 'SIGKILL');
  } catch {
    // Not started yet, or gone already.
  }
}
