import { Client, type ClientConfig, type QueryResult } from 'pg';

/** What the app's pool hands its clients, `extra` in dataSourceOptions included. */
export interface AppPgClientConfig extends ClientConfig {
  /** Prepare each statement once per connection; false behind a pooler that cannot keep them. */
  prepareStatements?: boolean;
}

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\s*;?\s*$/i;
const END = /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;

/** Postgres refuses to run a prepared statement whose result's columns changed (a migration since). */
const RESULT_CHANGED = '0A000';

/**
 * The name each statement text is prepared under, the same on every connection of the process.
 * The app has a few dozen texts; past this many, a new text is sent unprepared, so that a text
 * built with varying parts cannot grow what each connection keeps in Postgres.
 */
const MAX_PREPARED = 256;
const statementNames = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED) {
    name = `app_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

interface Corkable {
  cork(): void;
  uncork(): void;
}

/** What Postgres answers a statement that returns no rows, for a statement that was never sent. */
const answered = (command: string): QueryResult => ({ command, rowCount: null, oid: 0, rows: [], fields: [] });

/**
 * The pg client of the app's pool (`extra.Client` in dataSourceOptions). It talks to Postgres as
 * pg's own client does, with two economies that nobody above it sees: TypeORM, nestjs-cls and every
 * transaction in the app are unchanged.
 *
 * **A transaction's BEGIN goes in one write with its first statement**, and Postgres answers both
 * at once. TypeORM sends BEGIN alone and waits for its answer, which is a round trip in every
 * transaction: about a fifth of a checkout's. A BEGIN asked for alone is held, and answered at
 * once; the next statement goes out behind it (pg's pipeline mode, which sends a query without
 * waiting for the one before, and the socket corked until both are written). BEGIN fails only with
 * its connection, which fails the statement too; the caller gets BEGIN's error. A COMMIT or
 * ROLLBACK that finds BEGIN still held ends a transaction that never began: nothing is sent.
 * Anything else is sent as it comes, and waited for by its caller as before. Like any pooled
 * client, it must go back to the pool with its transaction ended (TypeORM's transactions always
 * end theirs): a BEGIN still held would go out with the next user's first statement, as a BEGIN
 * already sent would have left that user inside a transaction.
 *
 * **A statement with parameters is prepared once per connection** (a named statement, by its
 * text), then only bound and run: Postgres parses and plans it once, not on every call, and its
 * text crosses the wire once. If a migration changes the columns a prepared statement returns
 * (`SELECT *` of a table that gained one), Postgres refuses to run it: that call fails, and this
 * connection sends the text unprepared from then on. `prepareStatements: false` turns this off,
 * for a pooler in front of Postgres that moves sessions between connections and cannot keep them.
 */
export class AppPgClient extends Client {
  private beginHeld = false;
  private readonly prepares: boolean;
  /** Texts whose prepared statement this connection's Postgres refused since (RESULT_CHANGED). */
  private readonly unprepared = new Set<string>();

  constructor(config?: string | AppPgClientConfig) {
    const options: AppPgClientConfig = typeof config === 'string' ? { connectionString: config } : { ...config };
    super({ ...options, pipeline: true } as ClientConfig);
    this.prepares = options.prepareStatements ?? true;
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
    const [text, values, ...rest] = args;
    const name =
      this.prepares && typeof text === 'string' && Array.isArray(values) && values.length > 0 && rest.length === 0
        ? !this.unprepared.has(text) && nameOf(text)
        : undefined;
    if (!name) return (super.query as (...a: unknown[]) => Promise<QueryResult>).apply(this, args);
    const sent = super.query({ name, text: text as string, values: values as unknown[] });
    sent.catch((error: { code?: string }) => {
      if (error.code === RESULT_CHANGED) this.unprepared.add(text as string);
    });
    return sent;
  }
}
