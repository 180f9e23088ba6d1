import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './app-process';
import { eventually } from './eventually';

const run = promisify(execFile);
/** The server's binaries (initdb, pg_ctl, pg_basebackup): Debian's newest installed, as .ci/run's cluster is. */
export const BIN = `/usr/lib/postgresql/${
  readdirSync('/usr/lib/postgresql')
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(a) - Number(b))
    .pop() ?? '15'
}/bin`;
export const HOST = '127.0.0.1';
/** The standby's name in the primary's synchronous_standby_names (set through its primary_conninfo). */
export const STANDBY_NAME = 'checkout_standby';

export interface PostgresPairOptions {
  /**
   * Whether the primary waits for the standby before it answers a COMMIT (synchronous_standby_names
   * naming it, synchronous_commit on). False is asynchronous streaming: a commit is answered once
   * it is on the primary's disk, and reaches the standby a moment later (or never).
   */
  synchronous?: boolean;
}

/** One server of the pair: its data directory and port. */
export class PostgresServer {
  constructor(
    readonly name: string,
    readonly dataDir: string,
    readonly port: number,
  ) {}

  url(database = 'postgres'): string {
    return `postgres://postgres@${HOST}:${this.port}/${database}`;
  }

  async query<Row extends object = Record<string, unknown>>(sql: string, database = 'postgres'): Promise<Row[]> {
    const client = new Client({ connectionString: this.url(database), connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<Row>(sql)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The postmaster's process id, from its pid file (undefined once it is gone). */
  postmasterPid(): number | undefined {
    const file = join(this.dataDir, 'postmaster.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
  }
}

/**
 * A private primary and its streaming standby, on free ports, from the Postgres 15 binaries, run as
 * the postgres user in a temporary directory of their own: what a deployment puts under the app
 * when one database server is not allowed to be a single point of failure. With `synchronous`
 * (the default), the primary answers a COMMIT only once the standby has it on disk, so a commit the
 * app was told of survives the primary. The rig does what an operator's failover tool does:
 * `killPrimary` (the machine dies), `promoteStandby`; the endpoint the app reaches is the test's.
 */
export class PostgresPair {
  private constructor(
    readonly primary: PostgresServer,
    readonly standby: PostgresServer,
    readonly synchronous: boolean,
    private readonly dir: string,
  ) {}

  static async start(options: PostgresPairOptions = {}): Promise<PostgresPair> {
    const synchronous = options.synchronous ?? true;
    const dir = mkdtempSync(join(tmpdir(), 'postgres-pair-'));
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
    const [primaryPort, standbyPort] = await Promise.all([freePort(), freePort()]);
    const primary = new PostgresServer('primary', join(dir, 'primary'), primaryPort);
    const standby = new PostgresServer('standby', join(dir, 'standby'), standbyPort);
    const pair = new PostgresPair(primary, standby, synchronous, dir);
    try {
      await asPostgres('initdb', ['-D', primary.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
      settings(primary, dir, {
        wal_level: 'replica',
        max_wal_senders: '4',
        hot_standby: 'on',
        // The pair's own: answered by the standby only once it has the commit on disk (see above).
        synchronous_commit: 'on',
        // A process killed (not the machine) loses nothing its writes gave the kernel; the tests kill processes.
        fsync: 'off',
        full_page_writes: 'off',
        shared_buffers: '32MB',
        max_connections: '80',
      });
      await pair.startServer(primary);
      await asPostgres('pg_basebackup', [
        '-D',
        standby.dataDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '-d',
        `host=${HOST} port=${primary.port} user=postgres application_name=${STANDBY_NAME}`,
      ]);
      // The standby, once promoted, runs alone: it waits for no standby of its own (one is attached later, by hand).
      settings(standby, dir, { synchronous_standby_names: "''" });
      await pair.startServer(standby);
      if (synchronous) {
        await primary.query(`ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
        await primary.query(`SELECT pg_reload_conf()`);
      }
      await eventually(
        async () => {
          const [row] = await primary.query<{ sync_state: string }>(
            `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}' AND state = 'streaming'`,
          );
          expect(row?.sync_state).toBe(synchronous ? 'sync' : 'async');
        },
        { timeoutMs: 30_000, what: 'the standby to stream from the primary' },
      );
      return pair;
    } catch (error) {
      await pair.stop();
      throw error;
    }
  }

  /**
   * Holds the standby where it is: its WAL receiver paused (SIGSTOP) and its link cut on the
   * primary's side, so that nothing the primary writes from now on reaches it until `releaseStandby`
   * (and, once the primary is dead, nothing ever). A synchronous primary's commits wait meanwhile;
   * an asynchronous one's are answered, on the primary alone.
   */
  async holdStandby(): Promise<void> {
    const [receiver] = await this.standby.query<{ pid: number }>(`SELECT pid FROM pg_stat_wal_receiver`);
    if (!receiver) throw new Error('the standby has no WAL receiver');
    this.heldReceiver = receiver.pid;
    process.kill(receiver.pid, 'SIGSTOP');
    await this.primary.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`,
    );
  }

  private heldReceiver?: number;

  /** Lets the standby's WAL receiver go on (it reconnects to the primary if it is still there). */
  releaseStandby(): void {
    if (this.heldReceiver && alive(this.heldReceiver)) process.kill(this.heldReceiver, 'SIGCONT');
    this.heldReceiver = undefined;
  }

  /**
   * The primary dies at once, as with its machine: the postmaster and every process under it are
   * SIGKILLed together (no shutdown checkpoint, no backend finishing its statement).
   */
  async killPrimary(): Promise<void> {
    const pid = this.primary.postmasterPid();
    if (!pid) return;
    for (const child of [pid, ...childrenOf(pid)]) kill(child, 'SIGKILL');
    await eventually(() => !alive(pid), { timeoutMs: 10_000, what: 'the primary to be gone' });
  }

  /** Promotes the standby and resolves once it takes writes (pg_is_in_recovery() is false). */
  async promoteStandby(): Promise<void> {
    this.releaseStandby();
    await asPostgres('pg_ctl', ['-D', this.standby.dataDir, 'promote', '-w', '-t', '30']);
    await eventually(
      async () => {
        const [{ recovering }] = await this.standby.query<{ recovering: boolean }>(
          `SELECT pg_is_in_recovery() AS recovering`,
        );
        expect(recovering).toBe(false);
      },
      { timeoutMs: 30_000, what: 'the standby to take writes' },
    );
  }

  /** Creates a database on the primary (the standby receives it through the WAL). */
  async createDatabase(name: string): Promise<void> {
    await this.primary.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  }

  /** Stops both servers at once and removes their directories. */
  async stop(): Promise<void> {
    this.releaseStandby();
    for (const server of [this.primary, this.standby]) {
      const pid = server.postmasterPid();
      if (!pid) continue;
      for (const child of [pid, ...childrenOf(pid)]) kill(child, 'SIGKILL');
      await eventually(() => !alive(pid), { timeoutMs: 10_000, what: `the ${server.name} to stop` }).catch(
        () => undefined,
      );
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async startServer(server: PostgresServer): Promise<void> {
    await asPostgres('pg_ctl', [
      '-D',
      server.dataDir,
      '-l',
      join(this.dir, `${server.name}.log`),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }
}

/** Appends settings to a server's postgresql.conf, with its own port and socket directory. */
export function settings(server: PostgresServer, dir: string, values: Record<string, string>): void {
  const all = {
    port: String(server.port),
    listen_addresses: `'${HOST}'`,
    unix_socket_directories: `'${dir}'`,
    ...values,
  };
  appendFileSync(
    join(server.dataDir, 'postgresql.conf'),
    '\n' +
      Object.entries(all)
        .map(([name, value]) => `${name} = ${value}`)
        .join('\n') +
      '\n',
  );
}

export async function asPostgres(binary: string, args: string[]): Promise<void> {
  try {
    await run('runuser', ['-u', 'postgres', '--', join(BIN, binary), ...args], { timeout: 120_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${binary} failed: ${String(stderr || stdout || error)}`, { cause: error });
  }
}

export async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run('id', ['-u', 'postgres']),
    run('id', ['-g', 'postgres']),
  ]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

/** The processes whose parent is `pid` (a postmaster's backends and helpers). */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // The parent is the 4th field, after the command's name in parentheses (which may hold spaces).
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie (killed, not yet reaped) is gone for every purpose here.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}
