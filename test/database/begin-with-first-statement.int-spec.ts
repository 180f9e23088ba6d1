import type { Socket } from 'node:net';
import type { QueryResult } from 'pg';
import { BeginWithFirstStatement } from '../../src/infra/database/begin-with-first-statement';
import { TestDatabase } from '../support/test-database';

/** Counts the writes the client makes to its socket: a round trip is a write and its answer. */
function writesOf(client: BeginWithFirstStatement): () => number {
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method] as ((...args: unknown[]) => void) | undefined;
    if (!original) continue;
    (socket as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      writes += 1;
      original.apply(socket, args);
    };
  }
  return () => writes;
}

describe('BeginWithFirstStatement, the pool client that sends BEGIN with the first statement', () => {
  let database: TestDatabase;
  let client: BeginWithFirstStatement;

  beforeAll(async () => {
    database = await TestDatabase.create();
    await database.query('CREATE TABLE notes (id int PRIMARY KEY)');
  });

  beforeEach(async () => {
    client = new BeginWithFirstStatement({ connectionString: database.url });
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
    expect(writes()).toBe(3); // BEGIN with the insert, the select, the rollback
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
    expect(writes()).toBe(0);
  });

  it('when the first statement fails, then the caller gets its error and the transaction can be rolled back', async () => {
    await database.query('INSERT INTO notes (id) VALUES (4)');

    await client.query('START TRANSACTION');
    await expect(client.query('INSERT INTO notes (id) VALUES ($1)', [4])).rejects.toThrow(/duplicate key/);
    await client.query('ROLLBACK');

    expect(client.getTransactionStatus()).toBe('I');
    expect(((await client.query('SELECT count(*)::int AS n FROM notes')) as QueryResult).rows).toEqual([{ n: 1 }]);
  });
});
