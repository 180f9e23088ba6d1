/**
 * Loaded with `-r` into an app process that checkout.bench.ts starts, before the app's own code:
 * counts what the app sends to Postgres and Redis, and answers the counts over the IPC channel of
 * the process. It changes nothing the app does: every query and command goes through as it came,
 * and is only counted on its way.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- the very modules the app loads, patched before it loads them */
const pg = require('pg') as typeof import('pg');
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

const counters: Omit<ProbeCounters, 'cpuMicros'> = {
  pgRoundTrips: 0,
  pgControl: 0,
  pgStatements: 0,
  pgTransactions: 0,
  redisCommands: 0,
  redisRoundTrips: 0,
};

const CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const BEGINS = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;
const ENDS = /^\s*(COMMIT|END|ROLLBACK)\s*;?\s*$/i;
const inTransaction = new WeakSet<object>();

type QueryFn = (this: object, ...args: unknown[]) => unknown;
const originalQuery = pg.Client.prototype.query as unknown as QueryFn;
(pg.Client.prototype as unknown as { query: QueryFn }).query = function query(this: object, ...args: unknown[]) {
  const [config] = args;
  // A Submittable (a cursor, a stream) says nothing we could count reliably: let it through.
  if (config && typeof config === 'object' && typeof (config as { submit?: unknown }).submit === 'function')
    return originalQuery.apply(this, args);
  const text = typeof config === 'string' ? config : String((config as { text?: unknown })?.text ?? '');
  // Statements the app's client sends in one write (AppPgClient: a held BEGIN or outbox row with
  // the statement after it, statements asked for in one tick) make one round trip.
  if ((this as { sharesAWrite?: boolean }).sharesAWrite !== true) counters.pgRoundTrips += 1;
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
  return originalQuery.apply(this, args);
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

if (process.send) {
  process.on('message', (request: { probe?: number; ask?: string }) => {
    if (typeof request?.probe !== 'number' || request.ask !== 'counters') return;
    const cpu = process.cpuUsage();
    process.send?.({ probe: request.probe, body: { ...counters, cpuMicros: cpu.user + cpu.system } });
  });
  // The channel must not keep the app alive once it has been told to stop.
  process.channel?.unref();
}
