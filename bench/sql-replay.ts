import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AppPgClient, type AppPgClientConfig } from '../src/infra/database/app-pg-client';
import type { RecordedQuery } from './app-probe';
import { phase } from './progress';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const BEGINS = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;
const ENDS = /^\s*(COMMIT|END|ROLLBACK)\s*;?\s*$/i;

/** One transaction as a connection of the app sent it: BEGIN to COMMIT, or a statement alone. */
interface Unit {
  queries: RecordedQuery[];
  /** When its last statement was sent: a transaction that another one read from ended before. */
  endedAt: number;
  explicit: boolean;
}

export interface Recording {
  units: Unit[];
  statements: number;
  /** Connections of the app that sent anything while it was recorded. */
  connections: number;
}

/** Reads the probes' files (one per app process) and cuts each connection's statements into transactions. */
export function readRecording(files: string[]): Recording {
  const units: Unit[] = [];
  const connections = new Set<string>();
  let statements = 0;
  for (const [process, file] of files.entries()) {
    const queries = JSON.parse(readFileSync(file, 'utf8')) as RecordedQuery[];
    statements += queries.length;
    const open = new Map<number, Unit>();
    for (const query of queries) {
      connections.add(`${process}:${query.connection}`);
      let unit = open.get(query.connection);
      if (!unit) {
        unit = { queries: [], endedAt: query.at, explicit: BEGINS.test(query.text) };
        if (unit.explicit) open.set(query.connection, unit);
        else units.push(unit);
      }
      unit.queries.push(query);
      unit.endedAt = query.at;
      if (unit.explicit && ENDS.test(query.text)) {
        open.delete(query.connection);
        units.push(unit);
      }
    }
    // A transaction still open when the recording stopped is replayed up to where it was.
    units.push(...open.values());
  }
  units.sort((a, b) => a.endedAt - b.endedAt);
  return { units, statements, connections: connections.size };
}

export interface ReplayResult {
  /** Copies of the recording replayed per second, as a fraction of statements. */
  copiesPerSecond: number;
  concurrency: number;
  statementsPerSecond: number;
  /** Transactions that failed in the replay where the app's did not (after retries). */
  unexpectedErrors: number;
  /** Transactions tried again after a deadlock. */
  retries: number;
  firstError?: string;
}

/** Told of every statement a replay sent: how long its round trip took, as the client saw it. */
export type StatementObserver = (query: RecordedQuery, ms: number) => void;

export interface ReplayOptions {
  observe?: StatementObserver;
  /** Settings of the app's client, as the recorded app had them (prepared statements or not). */
  client?: AppPgClientConfig;
}

/**
 * Sends the recorded statements again with raw pg and nothing else: `concurrency` connections,
 * each replaying whole copies of the recording, transaction by transaction in the order they
 * ended, with the same statements, parameters and transaction boundaries (through the app's pool
 * client: BEGIN in one write with the statement after it, each statement prepared once). Each copy gets fresh
 * UUIDs for every id the recording made (checkouts, messages, keys), so its rows are new rows,
 * while `keep` (the buyers, who existed before) stay as they are.
 */
export async function replay(
  databaseUrl: string,
  recording: Recording,
  concurrency: number,
  seconds: number,
  keep: Set<string>,
  { observe, client: clientConfig }: ReplayOptions = {},
): Promise<ReplayResult> {
  let statementsDone = 0;
  let unexpectedErrors = 0;
  let retries = 0;
  let firstError: string | undefined;
  const deadline = Date.now() + seconds * 1_000;
  const started = Date.now();
  phase(`ceiling: replaying ${recording.statements} statements with raw pg, ${concurrency} connections, ${seconds} s`);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      // The app's own client: BEGIN goes with the statement after it, as it does in the app.
      const client = new AppPgClient({ ...clientConfig, connectionString: databaseUrl });
      await client.connect();
      try {
        while (Date.now() < deadline) {
          const ids = new Map<string, string>();
          const fresh = (text: string) =>
            text.replace(UUID, (uuid) => {
              const key = uuid.toLowerCase();
              if (keep.has(key)) return uuid;
              let mapped = ids.get(key);
              if (!mapped) ids.set(key, (mapped = randomUUID()));
              return mapped;
            });
          for (const unit of recording.units) {
            if (Date.now() >= deadline) break;
            // A deadlock between two copies (their relays' claims cross) is retried, as the app's would be.
            for (let attempt = 1; attempt <= 3; attempt += 1) {
              const outcome = await replayUnit(client, unit, fresh, observe);
              if (outcome.error && RETRIED.has(outcome.code ?? '') && attempt < 3) {
                retries += 1;
                continue;
              }
              statementsDone += outcome.statements;
              if (outcome.error) {
                unexpectedErrors += 1;
                firstError ??= outcome.error;
              }
              break;
            }
          }
        }
      } finally {
        await client.end();
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1_000;
  return {
    copiesPerSecond: statementsDone / recording.statements / elapsed,
    concurrency,
    statementsPerSecond: statementsDone / elapsed,
    unexpectedErrors,
    retries,
    firstError,
  };
}

/**
 * A claim (`SELECT ... WHERE ... FOR UPDATE SKIP LOCKED`) locks whatever rows are free when it
 * runs: replayed as it was, one copy's relay would lock the rows of every other copy in flight,
 * which then wait for it, a contention the app does not have. It is replayed on the rows the app
 * claimed (this copy's), with the same statement otherwise.
 */
function asReplayed(query: RecordedQuery): { text: string; values: Array<string | null> } {
  if (!query.claimed) return query;
  const where = /\bWHERE\b/i.exec(query.text);
  if (!where) return query;
  const rest = query.text.slice(where.index + where[0].length);
  const end = /\b(ORDER\s+BY|LIMIT|FOR\s+UPDATE)\b/i.exec(rest);
  if (!end) return query;
  const position = query.values.length + 1;
  return {
    text:
      query.text.slice(0, where.index) +
      `WHERE id = ANY($${position}::uuid[]) AND (${rest.slice(0, end.index)}) ${rest.slice(end.index)}`,
    values: [...query.values, `{${query.claimed.join(',')}}`],
  };
}

/** Deadlocks and serialization failures: the transaction is tried again. */
const RETRIED = new Set(['40P01', '40001']);

/**
 * One transaction, write by write: a statement and those the app sent in its write (`joined`) are
 * sent in one tick, so the replay's client sends them in one write too. Stops at the first failure
 * the app did not see.
 */
async function replayUnit(
  client: AppPgClient,
  unit: Unit,
  fresh: (text: string) => string,
  observe?: StatementObserver,
): Promise<{ statements: number; error?: string; code?: string }> {
  let statements = 0;
  const { queries } = unit;
  for (let next = 0; next < queries.length;) {
    const write = [queries[next++]];
    while (next < queries.length && queries[next].joined) write.push(queries[next++]);
    const sentAt = performance.now();
    const answers = await Promise.allSettled(write.map((query) => send(client, query, fresh)));
    for (const [index, answer] of answers.entries()) {
      const query = write[index];
      statements += 1;
      if (index === 0) observe?.(query, performance.now() - sentAt); // the write's time, once
      if (answer.status === 'fulfilled' || query.failed) continue; // a failure the app saw too, and went on
      if (unit.explicit) await client.query('ROLLBACK').catch(() => undefined);
      return {
        statements,
        error: `${String(answer.reason)} in: ${query.text.slice(0, 200)}`,
        code: (answer.reason as { code?: string }).code,
      };
    }
  }
  return { statements };
}

/** One recorded statement, sent again with fresh ids. */
function send(client: AppPgClient, query: RecordedQuery, fresh: (text: string) => string): Promise<unknown> {
  const sent = asReplayed(query);
  const values = sent.values.map((value, index) =>
    value === null ? null : query.binary?.includes(index) ? Buffer.from(value, 'base64') : fresh(value),
  );
  return values.length > 0 ? client.query(fresh(sent.text), values) : client.query(fresh(sent.text));
}
