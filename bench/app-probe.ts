/**
 * Loaded with `-r` into an app process that checkout.bench.ts starts, before the app's own code:
 * counts what the app sends to Postgres and Redis, records its SQL when asked, and takes a CPU
 * profile when asked, answering over the IPC channel of the process. It changes nothing the app
 * does: every query and command goes through as it came, and is only counted on its way.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
/* eslint-disable @typescript-eslint/no-require-imports -- the very modules the app loads, patched before it loads them */
const pg = require('pg') as typeof import('pg');
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };
const IORedis = require('ioredis') as typeof import('ioredis').default;
/* eslint-enable @typescript-eslint/no-require-imports */

/** What the app has sent since it started; the bench takes differences. */
export interface ProbeCounters {
  /** Every `query` call but those held and written with the next: pg sends each and waits for its answer. */
  pgRoundTrips: number;
  /** BEGIN/START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, RELEASE. */
  pgControl: number;
  /** The rest: the statements that read or write data. */
  pgStatements: number;
  /** Explicit transactions begun, plus statements sent outside one (each is a transaction). */
  pgTransactions: number;
  /** Commands handed to ioredis, each one inside a pipeline or a MULTI included. */
  redisCommands: number;
  /** Writes to a Redis connection: a command alone, or a whole pipeline. */
  redisRoundTrips: number;
  /** This process's CPU, user + system, in microseconds. */
  cpuMicros: number;
}

/** One recorded statement: what was sent, on which connection, and how it went. */
export interface RecordedQuery {
  connection: number;
  text: string;
  /** The parameters as pg sends them: text, or null (Buffers as base64 in `binary`). */
  values: Array<string | null>;
  binary?: number[];
  /** When it was sent, in ms since the recording started. */
  at: number;
  failed?: boolean;
  /** Sent in the write of the statement before it (AppPgClient): no round trip of its own. */
  joined?: boolean;
  /** For a claim (FOR UPDATE SKIP LOCKED), the ids of the rows it locked. */
  claimed?: string[];
}

const counters: Omit<ProbeCounters, 'cpuMicros'> = {
  pgRoundTrips: 0,
  pgControl: 0,
  pgStatements: 0,
  pgTransactions: 0,
  redisCommands: 0,
  redisRoundTrips: 0,
};

const CLAIM = /FOR\s+UPDATE\s+SKIP\s+LOCKED/i;
const CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const BEGINS = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;
const ENDS = /^\s*(COMMIT|END|ROLLBACK)\s*;?\s*$/i;

const connectionIds = new WeakMap<object, number>();
const inTransaction = new WeakSet<object>();
let nextConnection = 1;
let recording: { startedAt: number; queries: RecordedQuery[] } | undefined;

function record(client: object, text: string, values: unknown[] | undefined): RecordedQuery | undefined {
  if (!recording) return undefined;
  let connection = connectionIds.get(client);
  if (connection === undefined) connectionIds.set(client, (connection = nextConnection++));
  const entry: RecordedQuery = { connection, text, values: [], at: performance.now() - recording.startedAt };
  for (const [index, value] of (values ?? []).entries()) {
    const prepared = prepareValue(value);
    if (Buffer.isBuffer(prepared)) {
      entry.values.push(prepared.toString('base64'));
      (entry.binary ??= []).push(index);
    } else entry.values.push(prepared === null || prepared === undefined ? null : String(prepared));
  }
  recording.queries.push(entry);
  return entry;
}

type QueryFn = (this: object, ...args: unknown[]) => unknown;
const originalQuery = pg.Client.prototype.query as unknown as QueryFn;
(pg.Client.prototype as unknown as { query: QueryFn }).query = function query(this: object, ...args: unknown[]) {
  const [config, second] = args;
  // A Submittable (a cursor, a stream) says nothing we could count reliably: let it through.
  if (config && typeof config === 'object' && typeof (config as { submit?: unknown }).submit === 'function')
    return originalQuery.apply(this, args);
  const text = typeof config === 'string' ? config : String((config as { text?: unknown })?.text ?? '');
  const values = Array.isArray(second) ? second : (config as { values?: unknown[] } | undefined)?.values;
  // Statements the app's client sends in one write (AppPgClient: a held BEGIN or outbox row with
  // the statement after it, statements asked for in one tick) make one round trip.
  const joined = (this as { sharesAWrite?: boolean }).sharesAWrite === true;
  if (!joined) counters.pgRoundTrips += 1;
  if (CONTROL.test(text)) {
    counters.pgControl += 1;
    if (BEGINS.test(text)) {
      counters.pgTransactions += 1;
      inTransaction.add(this);
    } else if (ENDS.test(text)) inTransaction.delete(this);
  } else {
    counters.pgStatements += 1;
    if (!inTransaction.has(this)) counters.pgTransactions += 1;
  }
  const entry = record(this, text, values);
  if (entry && joined) entry.joined = true;
  const claim = entry && CLAIM.test(text);
  const claimedBy = (result: unknown) => {
    if (claim)
      entry.claimed = ((result as { rows?: Array<{ id?: unknown }> })?.rows ?? []).map((row) => String(row.id));
  };
  if (entry) {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (error: unknown, ...rest: unknown[]) => void;
      args[last] = (error: unknown, ...rest: unknown[]) => {
        if (error) entry.failed = true;
        else claimedBy(rest[0]);
        callback(error, ...rest);
      };
    }
  }
  const result = originalQuery.apply(this, args);
  // Observed, not handled: the app's own await still gets the rejection.
  if (entry && result instanceof Promise) result.then(claimedBy, () => (entry.failed = true));
  return result;
};

type SendCommand = (this: object, command: unknown, stream?: { isPipeline?: boolean }, ...rest: unknown[]) => unknown;
const pipelinesSeen = new WeakSet<object>();
const originalSendCommand = IORedis.prototype.sendCommand as unknown as SendCommand;
(IORedis.prototype as unknown as { sendCommand: SendCommand }).sendCommand = function sendCommand(
  this: object,
  command,
  stream,
  ...rest
) {
  counters.redisCommands += 1;
  if (!stream?.isPipeline) counters.redisRoundTrips += 1;
  else if (!pipelinesSeen.has(stream)) {
    pipelinesSeen.add(stream);
    counters.redisRoundTrips += 1;
  }
  return originalSendCommand.call(this, command, stream, ...rest);
};

let profiler: Session | undefined;

type Request =
  | { probe: number; ask: 'counters' }
  | { probe: number; ask: 'record-start' }
  | { probe: number; ask: 'record-stop'; file: string }
  | { probe: number; ask: 'profile-start' }
  | { probe: number; ask: 'profile-stop'; file: string };

async function answer(request: Request): Promise<unknown> {
  switch (request.ask) {
    case 'counters': {
      const cpu = process.cpuUsage();
      return { ...counters, cpuMicros: cpu.user + cpu.system } satisfies ProbeCounters;
    }
    case 'record-start':
      recording = { startedAt: performance.now(), queries: [] };
      return {};
    case 'record-stop': {
      const queries = recording?.queries ?? [];
      recording = undefined;
      writeFileSync(request.file, JSON.stringify(queries));
      return { queries: queries.length };
    }
    case 'profile-start':
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
      return {};
    case 'profile-stop': {
      if (!profiler) throw new Error('no profile was started');
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      profiler = undefined;
      writeFileSync(request.file, JSON.stringify(profile));
      return {};
    }
  }
}

if (process.send) {
  process.on('message', (request: Request) => {
    if (typeof request?.probe !== 'number') return;
    answer(request).then(
      (body) => process.send?.({ probe: request.probe, body }),
      (error: unknown) => process.send?.({ probe: request.probe, error: String(error) }),
    );
  });
  // The channel must not keep the app alive once it has been told to stop.
  process.channel?.unref();
}
