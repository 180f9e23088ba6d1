import { Pool, type PoolClient } from 'pg';

/**
 * A participant's pool on its own database, and its transactions (`Tx`, made by `within` on each).
 * A store of a service extends it with its reads; its writes go through `transaction` or `once`.
 */
export class ParticipantStore<Tx extends ParticipantTransaction> {
  protected readonly pool: Pool;

  constructor(
    databaseUrl: string,
    applicationName: string,
    /** What a transaction of this store offers, on the client that runs it. */
    private readonly within: (db: PoolClient) => Tx,
  ) {
    this.pool = new Pool({ connectionString: databaseUrl, max: 8, application_name: applicationName });
    this.pool.on('error', () => undefined); // an idle connection lost: the next call opens another
  }

  /** Nest calls it as the service stops: the pool's connections end with it. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

  /** Runs `work` in a transaction: committed if it returns, rolled back if it throws. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, (db) => work(this.within(db)));
  }

  /**
   * One request under its idempotency key, in a transaction holding the lock named `lock` (calls
   * on one key take turns): the response `kept` finds for it, else the one `decide` makes (and keeps).
   */
  once<R>(lock: string, kept: (tx: Tx) => Promise<R | undefined>, decide: (tx: Tx) => Promise<R>): Promise<R> {
    return this.transaction(async (tx) => {
      await tx.lock(lock);
      return (await kept(tx)) ?? decide(tx);
    });
  }
}

/** BEGIN, `work`, COMMIT on one client of the pool; ROLLBACK if `work` throws. */
async function inTransaction<T>(pool: Pool, work: (db: PoolClient) => Promise<T>): Promise<T> {
  const db = await pool.connect();
  // A connection lost while checked out says so by an 'error' event, which must be heard (unheard,
  // it ends the process); the client is then released as broken, not back into the pool.
  const lost: Error[] = [];
  const hear = (error: Error) => lost.push(error);
  db.on('error', hear);
  let committing = false;
  try {
    await db.query('BEGIN');
    const result = await work(db);
    committing = true;
    await db.query('COMMIT');
    return result;
  } finally {
    if (!committing) await db.query('ROLLBACK').catch(() => undefined);
    db.off('error', hear);
    db.release(lost[0]);
  }
}

/** A transaction on a participant's database, with the locks by which calls on one key take turns. */
export class ParticipantTransaction {
  constructor(protected readonly db: PoolClient) {}

  /** Waits for, then holds until the transaction ends, the lock named `key`: calls on one key take turns. */
  async lock(key: string): Promise<void> {
    await this.db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
  }
}
