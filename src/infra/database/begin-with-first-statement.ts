import { Client, type ClientConfig, type QueryResult } from 'pg';

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\s*;?\s*$/i;
const END = /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;

interface Corkable {
  cork(): void;
  uncork(): void;
}

/** What Postgres answers a statement that returns no rows, for a statement that was never sent. */
const answered = (command: string): QueryResult => ({ command, rowCount: null, oid: 0, rows: [], fields: [] });

/**
 * The pg client of the app's pool (`extra.Client` in dataSourceOptions): it sends a transaction's
 * BEGIN together with the transaction's first statement, in one write, and Postgres answers both
 * at once. TypeORM sends BEGIN alone and waits for its answer, which is a round trip in every
 * transaction: about a fifth of a checkout's.
 *
 * A BEGIN asked for alone is held, and answered at once; the next statement goes out behind it
 * (pg's pipeline mode, which sends a query without waiting for the one before, and the socket
 * corked until both are written). BEGIN fails only with its connection, which fails the statement
 * too; the caller gets BEGIN's error. A COMMIT or ROLLBACK that finds BEGIN still held ends a
 * transaction that never began: nothing is sent. Anything else is sent as it comes, and waited for
 * by its caller as before. Like any pooled client, it must go back to the pool with its transaction
 * ended (TypeORM's transactions always end theirs): a BEGIN still held would go out with the next
 * user's first statement, as a BEGIN already sent would have left that user inside a transaction.
 */
export class BeginWithFirstStatement extends Client {
  private beginHeld = false;

  constructor(config?: string | ClientConfig) {
    super({ ...(typeof config === 'string' ? { connectionString: config } : config), pipeline: true } as ClientConfig);
  }

  // pg's query() has many overloads; this one passes them all through, but for a held BEGIN.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [config] = args as unknown[];
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | undefined)?.text;
    // A statement whose answer comes as a promise: TypeORM's way, and the only one held or merged.
    const plain = typeof text === 'string' && !args.some((arg) => typeof arg === 'function');
    if (plain && BEGIN.test(text) && !this.beginHeld) {
      this.beginHeld = true;
      return Promise.resolve(answered('BEGIN'));
    }
    if (!this.beginHeld) return this.send(args);
    this.beginHeld = false;
    const end = plain ? END.exec(text) : null;
    if (end) return Promise.resolve(answered(end[1].toUpperCase()));
    const { stream } = (this as unknown as { connection: { stream: Corkable } }).connection;
    stream.cork();
    try {
      const begun = this.send(['BEGIN']);
      const sent = this.send(args);
      if (!plain) {
        begun.catch(() => undefined); // the statement's own callback hears of a failure
        return sent;
      }
      return Promise.all([begun, sent]).then(([, result]) => result);
    } finally {
      stream.uncork(); // both are written by now (or queued until the client connects)
    }
  }

  private send(args: unknown[]): Promise<QueryResult> {
    return (super.query as (...a: unknown[]) => Promise<QueryResult>).apply(this, args);
  }
}
