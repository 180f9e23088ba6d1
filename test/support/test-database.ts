import { randomBytes } from 'node:crypto';
import { Client, escapeIdentifier, Pool } from 'pg';
import {
  assertTestDatabase,
  runDatabasePrefix,
  templateDatabaseName,
  TEST_DATABASE_URL,
  withDatabaseName,
} from './test-env';

const maintenanceUrl = () => withDatabaseName(TEST_DATABASE_URL, 'postgres');

async function onMaintenanceDatabase<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: maintenanceUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function recreateDatabase(name: string, template?: string): Promise<void> {
  assertTestDatabase(withDatabaseName(TEST_DATABASE_URL, name));
  await onMaintenanceDatabase(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`);
    await client.query(
      `CREATE DATABASE ${escapeIdentifier(name)}${template ? ` TEMPLATE ${escapeIdentifier(template)}` : ''}`,
    );
  });
}

export async function dropDatabase(name: string): Promise<void> {
  assertTestDatabase(withDatabaseName(TEST_DATABASE_URL, name));
  await onMaintenanceDatabase(async (client) => {
    await dropReplicationSlots(client, name);
    await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`);
  });
}

/**
 * A database with a replication slot cannot be dropped, even WITH (FORCE): the logical relay's
 * slot (on the logical lane's cluster) goes first, its reader's session ended if it is still there.
 */
async function dropReplicationSlots(client: Client, database: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    const { rows } = await client.query<{ slot_name: string; active_pid: number | null }>(
      `SELECT slot_name, active_pid FROM pg_replication_slots WHERE database = $1`,
      [database],
    );
    if (rows.length === 0) return;
    try {
      for (const { slot_name, active_pid } of rows) {
        if (active_pid !== null) await client.query(`SELECT pg_terminate_backend($1, 5000)`, [active_pid]);
        await client.query(`SELECT pg_drop_replication_slot($1)`, [slot_name]);
      }
    } catch (error) {
      // Its reader took it again before the drop (an app still running): once more, a moment later.
      if (tries >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

let created = 0;

/** The application_name of a TestDatabase's own sessions: a test tells the app's sessions from them by it. */
export const TEST_DATABASE_SESSIONS = 'test-database';

/**
 * A database of its own for one test file (or one app), copied from the migrated template that
 * the global setup made: no test sees another's rows, and copying takes milliseconds.
 */
export class TestDatabase {
  readonly url: string;
  /** For the test's own assertions; separate from the app's pool. */
  readonly pool: Pool;
  /** Made here on the shared server (and dropped at the end), or only reached here (`at`). */
  private readonly owned: boolean;

  private constructor(
    readonly name: string,
    url?: string,
  ) {
    this.owned = url === undefined;
    this.url = url ?? withDatabaseName(TEST_DATABASE_URL, name);
    this.pool = new Pool({ connectionString: this.url, max: 4, application_name: TEST_DATABASE_SESSIONS });
    // An idle connection ended from outside (the drop's FORCE, a test that cuts connections) is
    // not the test's failure; the next query opens another.
    this.pool.on('error', () => undefined);
  }

  static async create(): Promise<TestDatabase> {
    // Random too: each test file loads this module afresh (its counter starts again) in a shared worker.
    const name = `${runDatabasePrefix()}${process.env.JEST_WORKER_ID ?? 0}_${randomBytes(3).toString('hex')}_${++created}`;
    await recreateDatabase(name, templateDatabaseName());
    return new TestDatabase(name);
  }

  /**
   * A database on another server (a rig's own, such as a primary and standby behind an endpoint),
   * created and migrated elsewhere: only read and written here, never dropped.
   */
  static at(url: string): TestDatabase {
    return new TestDatabase(decodeURIComponent(new URL(url).pathname.slice(1)), url);
  }

  async query<Row extends object = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query<Row>(sql, params)).rows;
  }

  async drop(): Promise<void> {
    await this.pool.end();
    if (this.owned) await dropDatabase(this.name);
  }
}
