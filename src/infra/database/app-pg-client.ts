import { Client, type ClientConfig, type QueryResult } from 'pg';

/** What the app's pool hands its clients, `extra` in dataSourceOptions included. */
export interface AppPgClientConfig extends ClientConfig {
  /** Prepare each statement once per connection; false behind a pooler that cannot keep them. */
  prepareStatements?: boolean;
  /**
   * Bounds each transaction sets for itself (SET LOCAL, in the write of its BEGIN), behind a pooler
   * that refuses or drops the startup parameters lock_timeout and statement_timeout; a statement
   * outside a transaction gets one of its own. Missing or 0: no limit.
   */
  transactionBounds?: { lockTimeoutMs?: number; statementTimeoutMs?: number };
}

/** The SET LOCALs of `bounds`, or undefined when there is none to set. */
function boundsOf(bounds: AppPgClientConfig['transactionBounds']): string | undefined {
  const settings = [
    ['lock_timeout', bounds?.lockTimeoutMs],
    ['statement_timeout', bounds?.statementTimeoutMs],
  ].filter((setting): setting is [string, number] => Number.isSafeInteger(setting[1]) && (setting[1] as number) > 0);
  return settings.length === 0 ? undefined : settings.map(([name, ms]) => `SET LOCAL ${name} = ${ms}`).join('; ');
}

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\s*;?\s*$/i;
const END = /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;
/** A COMMIT (END is its other name), which Postgres answers with ROLLBACK in a failed transaction. */
const COMMIT = /^\s*(COMMIT|END)(\s+(WORK|TRANSACTION))?\s*;?\s*$/i;
/** Statements that a transaction of their own would change or break: sent as they come. */
const OWN_TRANSACTION =
  /^\s*(BEGIN|START|COMMIT|ROLLBACK|END|ABORT|SAVEPOINT|RELEASE|PREPARE|SET\s+TRANSACTION|LISTEN|UNLISTEN|VACUUM|CREATE\s+DATABASE|DROP\s+DATABASE|CREATE\s+INDEX\s+CONCURRENTLY|DROP\s+INDEX\s+CONCURRENTLY|REINDEX)\b/i;

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

/**
 * A COMMIT that Postgres answered with ROLLBACK: the transaction had failed before it (a statement
 * whose error was caught and not rethrown leaves it aborted), and nothing of it was kept. Raised,
 * so that the caller takes the transaction as failed, as it would any error of its statements.
 */
export class CommitRolledBackError extends Error {
  constructor() {
    super('COMMIT was answered with ROLLBACK: a statement of the transaction had failed, and nothing of it was kept');
    this.name = 'CommitRolledBackError';
  }
}

/** A BEGIN asked for alone, as held (known by its identity). */
const HELD_BEGIN = ['BEGIN'];

/** A held statement that was never sent: its transaction rolled back first. */
export class HeldStatementDroppedError extends Error {
  constructor() {
    super('A held statement was not sent: its transaction rolled back first');
    this.name = 'HeldStatementDroppedError';
  }
}

interface Awaited {
  resolve(answer: QueryResult): void;
  reject(error: unknown): void;
}

/**
 * The answer of the last of statements sent together, once all are answered; or the error of the
 * first that failed (in an aborted transaction, what follows fails for its sake, or rolls back).
 */
function answeredLast(answers: Array<PromiseSettledResult<QueryResult>>): QueryResult {
  const failed = answers.find((answer) => answer.status === 'rejected');
  if (failed) throw failed.reason;
  return (answers[answers.length - 1] as PromiseFulfilledResult<QueryResult>).value;
}

/** A COMMIT's answer; a ROLLBACK in its place (the transaction had failed) raises. */
function committed(answer: QueryResult): QueryResult {
  if (answer.command === 'ROLLBACK') throw new CommitRolledBackError();
  return answer;
}

/** What Postgres answers a statement that returns no rows, for a statement that was never sent. */
const answered = (command: string): QueryResult => ({ command, rowCount: null, oid: 0, rows: [], fields: [] });

/**
 * The pg client of the app's pool (`extra.Client` in dataSourceOptions). It talks to Postgres as
 * pg's own client does, with two economies; TypeORM, nestjs-cls and the app's transactions are
 * unchanged by them.
 *
 * **Statements sent in one tick go in one write**, and Postgres answers them at once: pg's
 * pipeline mode sends a query without waiting for the one before, and the socket is corked from
 * the first statement of a tick to the end of it. Statements that do not need each other's answers
 * are asked for together (`Promise.all`), and each gets its own answer.
 *
 * **A statement that needs no answer yet goes in one write with the next one.** A transaction's
 * BEGIN, which TypeORM sends alone and waits for (a round trip in every transaction), is held and
 * answered at once; a statement given to `sendWithNext` (the outbox's rows, which nobody reads back
 * in their transaction, or a lock taken before a read) waits for the transaction's next statement
 * or its COMMIT. If a held statement fails, the statement it rode with fails with its error. A
 * ROLLBACK drops what is held unsent, and a COMMIT or ROLLBACK that finds only BEGIN held ends a
 * transaction that never began: nothing is sent. Anything else is sent as it comes, and waited for
 * by its caller as before. Like any pooled client, it must go back to the pool with its transaction
 * ended (TypeORM's transactions always end theirs): a statement still held would go out with the
 * next user's first one, as a BEGIN already sent would have left that user inside a transaction.
 *
 * **A COMMIT that Postgres answers with ROLLBACK raises** (CommitRolledBackError). Postgres does
 * that, without an error, to a COMMIT of a transaction that an earlier statement's failure aborted:
 * a caller that caught that failure and carried on would otherwise take its transaction for
 * committed, and nothing of it was kept.
 *
 * **A statement with parameters is prepared once per connection** (a named statement, by its
 * text), then only bound and run: Postgres parses and plans it once, not on every call, and its
 * text crosses the wire once. If a migration changes the columns a prepared statement returns
 * (`SELECT *` of a table that gained one), Postgres refuses to run it: that call fails, and this
 * connection sends the text unprepared from then on. `prepareStatements: false` turns this off,
 * for a pooler in front of Postgres that moves sessions between connections and cannot keep them.
 */
export class AppPgClient extends Client {
  /** Statements that go out with the next one: a BEGIN asked for alone, then those of sendWithNext. */
  private held: unknown[][] = [];
  /** Who waits for the answer of a held statement (answerWithNext), by the statement. */
  private readonly awaited = new Map<unknown[], Awaited>();
  /** True while a statement goes into a write an earlier one of this tick opened (read by a round-trip probe). */
  sharesAWrite = false;
  /** True from the first statement of a tick to the end of it, while the socket is corked. */
  private writeOpen = false;
  private readonly prepares: boolean;
  /** SET LOCALs that go with each BEGIN (behind a pooler), or undefined. */
  private readonly bounds?: string;
  /** Texts whose prepared statement this connection's Postgres refused since (RESULT_CHANGED). */
  private readonly unprepared = new Set<string>();

  constructor(config?: string | AppPgClientConfig) {
    const options: AppPgClientConfig = typeof config === 'string' ? { connectionString: config } : { ...config };
    super({ ...options, pipeline: true } as ClientConfig);
    this.prepares = options.prepareStatements ?? true;
    this.bounds = boundsOf(options.transactionBounds);
    // A lost connection is told to its queries and to the pool at release; unheard, its 'error'
    // would end the process (TypeORM holds a client with no listener while it checks extensions).
    this.on('error', () => undefined);
  }

  /**
   * Holds a statement of the open transaction whose answer nobody waits for (an outbox row): it
   * goes out in one write with the transaction's next statement, or with its COMMIT, and Postgres
   * runs it first. If it fails, that next statement fails with its error (and the transaction is
   * rolled back, a COMMIT included); a ROLLBACK drops it unsent. Outside a transaction it holds
   * nothing and returns false: the caller sends the statement itself.
   */
  sendWithNext(text: string, values: unknown[]): boolean {
    if (this.held.length === 0 && this.getTransactionStatus() === 'I') return false;
    this.held.push([text, values]);
    return true;
  }

  /**
   * As sendWithNext, for a statement whose answer its caller wants, but not before the
   * transaction's next statement: the answer comes with that one's (a failure of the statement
   * fails both; a ROLLBACK before it was sent rejects it with HeldStatementDroppedError). Outside a
   * transaction it holds nothing and returns undefined: the caller sends the statement itself.
   */
  answerWithNext(text: string, values: unknown[]): Promise<QueryResult> | undefined {
    if (this.held.length === 0 && this.getTransactionStatus() === 'I') return undefined;
    const statement = [text, values];
    this.held.push(statement);
    return new Promise((resolve, reject) => this.awaited.set(statement, { resolve, reject }));
  }

  // pg's query() has many overloads: all passed through, but for held statements and a rolled-back COMMIT.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [config] = args as unknown[];
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | undefined)?.text;
    // A statement whose answer comes as a promise: TypeORM's way, and the only one held or merged.
    const plain = typeof text === 'string' && !args.some((arg) => typeof arg === 'function');
    const answer = this.dispatch(args, text, plain);
    return plain && COMMIT.test(text) ? (answer as Promise<QueryResult>).then(committed) : answer;
  }

  private dispatch(args: unknown[], text: unknown, plain: boolean): unknown {
    if (plain && BEGIN.test(text as string) && this.held.length === 0) {
      this.held.push(HELD_BEGIN);
      return Promise.resolve(answered('BEGIN'));
    }
    if (this.held.length === 0) {
      if (this.bounds && plain && !OWN_TRANSACTION.test(text as string) && this.getTransactionStatus() === 'I') {
        return this.boundedAlone(args);
      }
      return this.send(args);
    }
    const held = this.held.splice(0);
    const end = plain ? END.exec(text as string)?.[1].toUpperCase() : undefined;
    const begun = held[0] === HELD_BEGIN;
    // What was held is undone with the transaction: none of it is sent, nor BEGIN's ROLLBACK.
    if (end === 'ROLLBACK') {
      for (const statement of held) {
        this.awaited.get(statement)?.reject(new HeldStatementDroppedError());
        this.awaited.delete(statement);
      }
      return begun ? Promise.resolve(answered(end)) : this.send(args);
    }
    if (end && held.length === 1 && begun) return Promise.resolve(answered(end)); // began and ended, empty
    // Held statements first, then this one, in the write of this tick.
    const before = held.map((statement) => this.settle(statement, this.send(statement)));
    const sent = this.send(args);
    if (!plain) {
      before.forEach((answer) => answer.catch(() => undefined)); // the statement's callback hears of a failure
      return sent;
    }
    return Promise.allSettled([...before, sent]).then(answeredLast);
  }

  /** Passes a held statement's answer to whoever waits for it; returns the answer. */
  private settle(statement: unknown[], answer: Promise<QueryResult>): Promise<QueryResult> {
    const awaited = this.awaited.get(statement);
    if (awaited) {
      this.awaited.delete(statement);
      answer.then(awaited.resolve, awaited.reject);
    }
    return answer;
  }

  /**
   * A statement outside a transaction, behind a pooler: in a transaction of its own that sets the
   * bounds, BEGIN, the statement and COMMIT in one write (one round trip, as alone).
   */
  private boundedAlone(args: unknown[]): Promise<QueryResult> {
    this.held.push(HELD_BEGIN);
    const answer = this.query(...args) as Promise<QueryResult>;
    const ending = this.query('COMMIT') as Promise<QueryResult>;
    return Promise.allSettled([answer, ending]).then(([statement, commit]) => {
      if (statement.status === 'rejected') throw statement.reason;
      if (commit.status === 'rejected') throw commit.reason;
      return statement.value;
    });
  }

  /**
   * Opens the write of this tick, if no statement has yet: the socket stays corked until the tick
   * ends, so that every statement sent meanwhile goes out with this one. True if it was open.
   */
  private joinWrite(): boolean {
    if (this.writeOpen) return true;
    const { stream } = (this as unknown as { connection: { stream: Corkable } }).connection;
    stream.cork();
    this.writeOpen = true;
    process.nextTick(() => {
      this.writeOpen = false;
      stream.uncork(); // all are written by now (or queued until the client connects)
    });
    return false;
  }

  private send(args: unknown[]): Promise<QueryResult> {
    this.sharesAWrite = this.joinWrite();
    try {
      return this.sendNow(args);
    } finally {
      this.sharesAWrite = false;
    }
  }

  private sendNow(args: unknown[]): Promise<QueryResult> {
    const [text, values, ...rest] = args;
    // Behind a pooler, a transaction sets its bounds in the same message as its BEGIN.
    if (this.bounds && typeof text === 'string' && values === undefined && BEGIN.test(text)) {
      return super.query(`${text.replace(/;?\s*$/, '')}; ${this.bounds}`) as unknown as Promise<QueryResult>;
    }
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
