import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './app-process';
import { eventually } from './eventually';
import { alive, asPostgres, childrenOf, HOST, kill, postgresUser, PostgresServer, settings } from './postgres-pair';

/**
 * A private Postgres server with wal_level=logical, on a free port, from the same binaries and as
 * the same user as the pair's (postgres-pair.ts): what the logical relay needs, and what the
 * machine's own server (wal_level=replica) does not give. `stop` kills it and removes its directory.
 */
export class LogicalPostgres {
  private constructor(
    readonly server: PostgresServer,
    private readonly dir: string,
  ) {}

  static async start({ maxConnections = 120 }: { maxConnections?: number } = {}): Promise<LogicalPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'postgres-logical-'));
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
    const server = new PostgresServer('logical', join(dir, 'data'), await freePort());
    const logical = new LogicalPostgres(server, dir);
    try {
      await asPostgres('initdb', ['-D', server.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
      settings(server, dir, {
        wal_level: 'logical',
        max_replication_slots: '20',
        max_wal_senders: '20',
        // A process killed (not the machine) loses nothing its writes gave the kernel; the tests kill processes.
        fsync: 'off',
        full_page_writes: 'off',
        shared_buffers: '32MB',
        max_connections: String(maxConnections),
        // When each transaction committed (pg_xact_commit_timestamp): the crash lane's check reads
        // it to tell a row committed after a kill from one the relay lost.
        track_commit_timestamp: 'on',
      });
      await asPostgres('pg_ctl', ['-D', server.dataDir, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
      return logical;
    } catch (error) {
      await logical.stop();
      throw error;
    }
  }

  url(database: string): string {
    return `postgres://postgres@${HOST}:${this.server.port}/${database}`;
  }

  async createDatabase(name: string): Promise<string> {
    await this.server.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    return this.url(name);
  }

  async stop(): Promise<void> {
    const pid = this.server.postmasterPid();
    if (pid) {
      for (const child of [pid, ...childrenOf(pid)]) kill(child, 'SIGKILL');
      await eventually(() => !alive(pid), { timeoutMs: 10_000, what: 'the server to stop' }).catch(() => undefined);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
