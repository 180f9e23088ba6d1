import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { sendWithNext } from '../../src/infra/database/one-write';
import { dataSourceOptions } from '../../src/infra/database/data-source.options';
import { PgBouncer } from '../support/pgbouncer';
import { TestDatabase } from '../support/test-database';

const LOCK_TIMEOUT_MS = 300;
const STATEMENT_TIMEOUT_MS = 500;
const LOCK_KEY = 7_316_470_099;

/**
 * The app's pool through PgBouncer 1.18 in transaction mode (DATABASE_POOLER=transaction): every
 * transaction gets whatever server connection is free, so nothing the app needs may live in a
 * session. Its bounds ride with each BEGIN, and a statement it holds back goes out in its own
 * transaction, never in another client's.
 */
describe('Through a transaction-mode pooler', () => {
  let bouncer: PgBouncer;
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    // Two server connections for eight clients: transactions queue for them and change hands.
    [bouncer, database] = await Promise.all([PgBouncer.start({ poolSize: 2 }), TestDatabase.create()]);
    dataSource = new DataSource(
      dataSourceOptions({
        url: bouncer.urlOf(database.url),
        pooler: 'transaction',
        preparedStatements: false,
        poolSize: 8,
        migrationsRun: false,
        retryMs: 1_000,
        lockTimeoutMs: LOCK_TIMEOUT_MS,
        statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      }),
    );
    await dataSource.initialize();
    await database.query(`CREATE TABLE pooler_held (tag text PRIMARY KEY, xid bigint NOT NULL)`);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
    await bouncer?.stop();
  });

  /** Holds LOCK_KEY on a session straight to Postgres until `release`. */
  async function holdLock(): Promise<() => Promise<void>> {
    const holder = new Client({ connectionString: database.url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    return () => holder.end();
  }

  it('when a statement of a transaction waits for a lock, then it ends at lock_timeout', async () => {
    const release = await holdLock();
    try {
      const waited = dataSource.transaction((tx) => tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]));
      await expect(waited).rejects.toMatchObject({ driverError: { code: '55P03' } });
    } finally {
      await release();
    }
  });

  it('when a statement outside a transaction waits for a lock, then it ends at lock_timeout too', async () => {
    const release = await holdLock();
    try {
      await expect(dataSource.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY])).rejects.toMatchObject({
        driverError: { code: '55P03' },
      });
    } finally {
      await release();
    }
  });

  it('when a statement runs long, then it ends at statement_timeout, and the connection serves the next', async () => {
    await expect(dataSource.query('SELECT pg_sleep(5)')).rejects.toMatchObject({ driverError: { code: '57014' } });
    await expect(
      dataSource.transaction((tx) => tx.query(`SELECT current_setting('statement_timeout') AS bound`)),
    ).resolves.toEqual([{ bound: `${STATEMENT_TIMEOUT_MS}ms` }]);
  });

  it('when transactions hold statements back while others run, then each held statement goes out in its own transaction or not at all', async () => {
    // Each transaction holds an insert that records the transaction it runs in; a third read their
    // transaction's id and commit, a third roll back after that read, a third before any other
    // statement (what they held is dropped unsent). Sixty transactions on eight clients over two
    // server connections.
    const ends = ['commit', 'rollback-after-read', 'rollback-at-once'] as const;
    const runs = Array.from({ length: 60 }, (_, i) => ({ tag: `t${i}`, end: ends[i % 3] }));
    const outcomes = await Promise.all(
      runs.map(({ tag, end }) =>
        dataSource
          .transaction(async (tx) => {
            await sendWithNext(tx, 'INSERT INTO pooler_held (tag, xid) VALUES ($1, txid_current())', [tag]);
            if (end === 'rollback-at-once') throw new Error('rolled back');
            const [{ xid }] = await tx.query<Array<{ xid: string }>>('SELECT txid_current() AS xid, pg_sleep(0.005)');
            if (end === 'rollback-after-read') throw new Error('rolled back');
            return { tag, xid };
          })
          .catch((error: Error) => ({ tag, rolledBack: error.message })),
      ),
    );
    const rows = await database.query<{ tag: string; xid: string }>('SELECT tag, xid::text FROM pooler_held');
    expect(new Map(rows.map(({ tag, xid }) => [tag, xid]))).toEqual(
      new Map(outcomes.filter((o): o is { tag: string; xid: string } => 'xid' in o).map((o) => [o.tag, o.xid])),
    );
    expect(outcomes.filter((o) => 'rolledBack' in o)).toHaveLength(40);
  });
});
