import type { Socket } from 'node:net';
import { Client, type QueryResult } from 'pg';
import type { EntityManager } from 'typeorm';
import { AppPgClient, CommitRolledBackError, HeldStatementDroppedError } from '../../src/infra/database/app-pg-client';
import { answerWithNext, lockUntilCommit, together } from '../../src/infra/database/one-write';
import { eventually } from '../support/eventually';
import { TestDatabase } from '../support/test-database';

/** What the client writes to its socket: a round trip is a write and its answer. */
function writesOf(client: AppPgClient): { count: () => number; text: () => string } {
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  const written: string[] = [];
  const bytes = (chunk: unknown) => String((chunk as { chunk?: unknown }).chunk ?? chunk);
  const original = { _write: socket._write, _writev: socket._writev };
  socket._write = (chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void) => {
    written.push(bytes(chunk));
    original._write.call(socket, chunk, encoding, callback);
  };
  if (original._writev) {
    socket._writev = (
      chunks: Array<{ chunk: unknown; encoding: BufferEncoding }>,
      callback: (error?: Error | null) => void,
    ) => {
      written.push(chunks.map(bytes).join(''));
      original._writev!.call(socket, chunks, callback);
    };
  }
  return { count: () => written.length, text: () => written.join('') };
}

/** A transaction's EntityManager, as much of it as the app's helpers use: its pool client, and query. */
const inTransactionOf = (client: AppPgClient) =>
  ({
    queryRunner: { connect: async () => client },
    query: async (text: string, values: unknown[]) => ((await client.query(text, values)) as QueryResult).rows,
  }) as unknown as EntityManager;

const prepared = async (client: AppPgClient) =>
  ((await client.query('SELECT statement FROM pg_prepared_statements')) as QueryResult).rows.map(
    (row: { statement: string }) => row.statement,
  );

describe("AppPgClient, the app pool's client", () => {
  let database: TestDatabase;
  let client: AppPgClient;

  beforeAll(async () => {
    database = await TestDatabase.create();
    await database.query('CREATE TABLE notes (id int PRIMARY KEY)');
  });

  beforeEach(async () => {
    client = new AppPgClient({ connectionString: database.url });
    await client.connect();
  });

  afterEach(async () => {
    await client.end();
    await database.query('DELETE FROM notes');
  });

  afterAll(() => database.drop());

  it('when a transaction is begun, then its first statement runs inside it, sent in the same write', async () => {
    const writes = writesOf(client);

    await client.query('START TRANSACTION');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [1]);
    const inside = (await client.query('SELECT txid_current_if_assigned() IS NOT NULL AS open')) as QueryResult;
    await client.query('ROLLBACK');

    expect(inside.rows).toEqual([{ open: true }]);
    expect(writes.count()).toBe(3); // BEGIN with the insert, the select, the rollback
    expect(await database.query('SELECT id FROM notes')).toEqual([]); // rolled back: it was in the transaction
  });

  it('when a transaction commits, then what it wrote stays, and later statements run outside any transaction', async () => {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [2]);
    await client.query('COMMIT');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [3]);

    expect(await database.query('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 2 }, { id: 3 }]);
    expect(client.getTransactionStatus()).toBe('I');
  });

  it('when its connection is lost while no caller listens for errors, then the process goes on and its next statement fails', async () => {
    // TypeORM holds a pool client with no listener of its own while it checks extensions at start.
    const { rows } = (await client.query('SELECT pg_backend_pid() AS pid')) as QueryResult<{ pid: number }>;
    await database.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    const lost = client as unknown as { _queryable: boolean };
    await eventually(() => expect(lost._queryable).toBe(false), { what: 'the connection seen lost' });

    await expect(client.query('SELECT 1')).rejects.toThrow(/not queryable|terminat/);
  });

  it('when the first statement is sent with a callback, then it still runs inside the transaction', async () => {
    await client.query('BEGIN');
    await new Promise<void>((resolve, reject) =>
      client.query('INSERT INTO notes (id) VALUES ($1)', [5], (error: Error | null) =>
        error ? reject(error) : resolve(),
      ),
    );
    await client.query('ROLLBACK');

    expect(await database.query('SELECT id FROM notes')).toEqual([]);
  });

  it('when a transaction ends before any statement, then nothing is sent at all', async () => {
    const writes = writesOf(client);

    await client.query('START TRANSACTION');
    const ended = await client.query('COMMIT');

    expect(ended.command).toBe('COMMIT');
    expect(writes.count()).toBe(0);
  });

  it('when the first statement fails, then the caller gets its error and the transaction can be rolled back', async () => {
    await database.query('INSERT INTO notes (id) VALUES (4)');

    await client.query('START TRANSACTION');
    await expect(client.query('INSERT INTO notes (id) VALUES ($1)', [4])).rejects.toThrow(/duplicate key/);
    await client.query('ROLLBACK');

    expect(client.getTransactionStatus()).toBe('I');
    expect(((await client.query('SELECT count(*)::int AS n FROM notes')) as QueryResult).rows).toEqual([{ n: 1 }]);
  });

  it('when a statement is held in a transaction, then it goes in one write with the COMMIT, and what it wrote stays', async () => {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [10]);
    const writes = writesOf(client);

    const held = client.sendWithNext('INSERT INTO notes (id) VALUES ($1)', [11]);
    const heldWrites = writes.count();
    await client.query('COMMIT');

    expect([held, heldWrites, writes.count()]).toEqual([true, 0, 1]);
    expect(await database.query('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 10 }, { id: 11 }]);
  });

  it('when a statement follows a held one, then Postgres runs the held one first, in the same write', async () => {
    await client.query('BEGIN');
    const writes = writesOf(client);

    client.sendWithNext('INSERT INTO notes (id) VALUES ($1)', [12]);
    const seen = (await client.query('SELECT count(*)::int AS n FROM notes WHERE id = $1', [12])) as QueryResult;
    await client.query('ROLLBACK');

    expect(seen.rows).toEqual([{ n: 1 }]);
    expect(writes.count()).toBe(2); // BEGIN, the held insert and the select; then the rollback
    expect(await database.query('SELECT id FROM notes')).toEqual([]);
  });

  it('when statements are asked for in one tick, then they go in one write and each gets its own answer', async () => {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [13]);
    const writes = writesOf(client);

    const answers = (await Promise.all([
      client.query('SELECT count(*)::int AS n FROM notes WHERE id = $1', [13]),
      client.query('INSERT INTO notes (id) VALUES ($1) RETURNING id', [14]),
      client.query('SELECT array_agg(id ORDER BY id) AS ids FROM notes'),
    ])) as QueryResult[];
    const together = writes.count();
    await client.query('COMMIT');

    expect(answers.map((answer) => answer.rows)).toEqual([[{ n: 1 }], [{ id: 14 }], [{ ids: [13, 14] }]]);
    expect([together, writes.count()]).toEqual([1, 2]); // the three, then the COMMIT
  });

  it('when one of the statements asked for in one tick fails, then its caller gets its error and the others theirs', async () => {
    await client.query('BEGIN');
    const writes = writesOf(client);

    const answers = await Promise.allSettled([
      client.query('INSERT INTO notes (id) VALUES ($1)', [15]),
      client.query('INSERT INTO notes (id) VALUES ($1)', [15]),
      client.query('SELECT 1'),
    ]);
    await client.query('ROLLBACK');

    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect((answers[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    expect((answers[2] as PromiseRejectedResult).reason).toMatchObject({ code: '25P02' }); // the transaction had failed
    expect(writes.count()).toBe(2);
    expect(await database.query('SELECT id FROM notes')).toEqual([]);
  });

  it("when a held lock is not granted in time, then the statements asked for together fail with the lock's error", async () => {
    const holder = new AppPgClient({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['notes:16']);
      await client.query('BEGIN');
      await client.query("SET LOCAL lock_timeout = '50ms'");

      await lockUntilCommit(inTransactionOf(client), 'notes:16');
      const asked = together([
        client.query('SELECT count(*)::int AS n FROM notes'),
        client.query('SELECT 1 AS one'),
        client.query('SELECT 2 AS two'),
      ]);

      await expect(asked).rejects.toMatchObject({ code: '55P03' }); // lock_not_available, not 25P02
      await client.query('ROLLBACK');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  it('when a lock is taken until commit, then the read after it waits for the lock and sees what its holder committed', async () => {
    const holder = new Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['notes:17']);
      await holder.query('INSERT INTO notes (id) VALUES (17)');
      await client.query('BEGIN');
      const writes = writesOf(client);

      await lockUntilCommit(inTransactionOf(client), 'notes:17');
      const read = client.query('SELECT id FROM notes') as Promise<QueryResult>;
      await eventually(
        async () => {
          const [waiting] = await database.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks
              WHERE locktype = 'advisory' AND NOT granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          );
          return waiting.n === 1;
        },
        { what: 'the lock is waited for' },
      );
      await holder.query('COMMIT');

      expect((await read).rows).toEqual([{ id: 17 }]); // its snapshot was taken once the lock was granted
      expect(writes.count()).toBe(1); // BEGIN, the lock and the read
      await client.query('COMMIT');
    } finally {
      await holder.end();
    }
  });

  it('when a held statement fails, then the COMMIT fails with its error and nothing of the transaction stays', async () => {
    await database.query('INSERT INTO notes (id) VALUES (13)');

    await client.query('BEGIN');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [14]);
    client.sendWithNext('INSERT INTO notes (id) VALUES ($1)', [13]);

    await expect(client.query('COMMIT')).rejects.toThrow(/duplicate key/);
    expect(client.getTransactionStatus()).toBe('I');
    expect(await database.query('SELECT id FROM notes')).toEqual([{ id: 13 }]);
  });

  it('when a failed statement was caught inside a transaction, then its COMMIT, answered with ROLLBACK, raises', async () => {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [18]);
    await client.query('SELECT 1 / 0').catch(() => undefined); // swallowed: the transaction is aborted

    await expect(client.query('COMMIT')).rejects.toBeInstanceOf(CommitRolledBackError);
    expect(client.getTransactionStatus()).toBe('I');
    expect(await database.query('SELECT id FROM notes')).toEqual([]);
  });

  it('when a failed statement was caught and a statement is held, then the COMMIT it rides with raises', async () => {
    await client.query('BEGIN');
    await client.query('SELECT 1 / 0').catch(() => undefined);
    client.sendWithNext('INSERT INTO notes (id) VALUES ($1)', [19]);

    await expect(client.query('COMMIT')).rejects.toThrow(/current transaction is aborted/);
    expect(client.getTransactionStatus()).toBe('I');
    expect(await database.query('SELECT id FROM notes')).toEqual([]);
  });

  it('when a transaction with a held statement rolls back, then nothing of it is sent', async () => {
    const writes = writesOf(client);

    await client.query('BEGIN');
    client.sendWithNext('INSERT INTO notes (id) VALUES ($1)', [15]);
    await client.query('ROLLBACK');

    expect(writes.count()).toBe(0);
    expect(await database.query('SELECT id FROM notes')).toEqual([]);
  });

  it("when a held statement's answer is wanted, then it comes in the COMMIT's write, with its rows", async () => {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [20]);
    const writes = writesOf(client);

    const { answer } = await answerWithNext<{ id: number }>(
      inTransactionOf(client),
      'WITH added AS (INSERT INTO notes (id) VALUES ($1) RETURNING id) SELECT id FROM added',
      [21],
    );
    const sentBefore = writes.count();
    await client.query('COMMIT');

    expect({ sentBefore, writes: writes.count(), rows: await answer }).toEqual({
      sentBefore: 0,
      writes: 1,
      rows: [{ id: 21 }],
    });
    expect(await database.query('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 20 }, { id: 21 }]);
  });

  it("when a held statement whose answer is wanted fails, then its answer and the COMMIT's both fail, and nothing is kept", async () => {
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (id) VALUES ($1)', [22]);

    const { answer } = await answerWithNext(inTransactionOf(client), 'INSERT INTO notes (id) VALUES ($1)', [22]);
    const commit = client.query('COMMIT') as Promise<QueryResult>;

    await expect(answer).rejects.toThrow(/duplicate key/);
    await expect(commit).rejects.toThrow(/duplicate key/);
    expect(await database.query('SELECT id FROM notes')).toEqual([]);
  });

  it('when the transaction of a held statement whose answer is wanted rolls back, then it is never sent and its answer says so', async () => {
    const writes = writesOf(client);
    await client.query('BEGIN');

    const { answer } = await answerWithNext(inTransactionOf(client), 'INSERT INTO notes (id) VALUES ($1)', [23]);
    await client.query('ROLLBACK');

    await expect(answer).rejects.toBeInstanceOf(HeldStatementDroppedError);
    expect(writes.count()).toBe(0);
  });

  it('when no transaction is open, then nothing is held: the caller sends the statement itself', () => {
    expect(client.sendWithNext('INSERT INTO notes (id) VALUES ($1)', [16])).toBe(false);
  });

  it('when a statement with parameters runs twice, then Postgres prepares it once and its text is sent once', async () => {
    const writes = writesOf(client);
    const text = 'SELECT id FROM notes WHERE id = $1 /* prepared once */';
    await database.query('INSERT INTO notes (id) VALUES (6), (7)');

    const first = (await client.query(text, [6])) as QueryResult;
    const second = (await client.query(text, [7])) as QueryResult;

    expect([first.rows, second.rows]).toEqual([[{ id: 6 }], [{ id: 7 }]]);
    expect(writes.text().split('prepared once').length - 1).toBe(1);
    expect(await prepared(client)).toEqual([text]);
  });

  it('when prepared statements are turned off, then a statement is sent whole every time', async () => {
    const unprepared = new AppPgClient({ connectionString: database.url, prepareStatements: false });
    await unprepared.connect();
    try {
      await unprepared.query('SELECT id FROM notes WHERE id = $1', [1]);

      expect(await prepared(unprepared)).toEqual([]);
    } finally {
      await unprepared.end();
    }
  });

  it('when a migration adds a column under a prepared SELECT *, then that call fails and the next ones see the column', async () => {
    const text = 'SELECT * FROM notes WHERE id = $1';
    await database.query('INSERT INTO notes (id) VALUES (8)');
    await client.query(text, [8]);

    await database.query('ALTER TABLE notes ADD COLUMN remark text');
    try {
      await expect(client.query(text, [8])).rejects.toMatchObject({ code: '0A000' });
      const again = (await client.query(text, [8])) as QueryResult;

      expect(again.rows).toEqual([{ id: 8, remark: null }]);
    } finally {
      await database.query('ALTER TABLE notes DROP COLUMN remark');
    }
  });
});
