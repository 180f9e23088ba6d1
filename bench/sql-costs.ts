import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { RedisServer } from '../test/support/redis-server';
import type { RecordedQuery } from './app-probe';
import { machine, recreateDatabase, until } from './bench-env';
import { CheckoutLoad, FINAL_STATUSES, parseMix } from './checkout-load';
import { ADMIN_TOKEN, PROBED_APP_ENV, ProbedApp } from './probed-app';
import { phase } from './progress';
import { readRecording, type Recording, replay } from './sql-replay';

/**
 * `node -r @swc-node/register bench/sql-costs.ts`: where a checkout's SQL time goes, per mode.
 * It records the SQL of a few seconds of checkouts the way `npm run bench -- checkout` does (the
 * app in its own process with the probe, at a given rate), then replays it with raw pg as the
 * ceiling does, timing every statement's round trip, and groups the statements by their text
 * with the parameters stripped. Meanwhile it samples pg_stat_activity, so that a group's time
 * can be split into running, waiting for a lock, and the rest; it samples the live app the same
 * way while it is recorded, because only there do the transactions of one checkout run side by
 * side. Last, one statement of each group is explained (ANALYZE and BUFFERS, rolled back) on the
 * data the replay grew, and the tables' scan counters say what the replay read.
 *
 * Settings: BENCH_CHECKOUT_MODES, BENCH_RECORD_SECONDS (4), BENCH_REPLAY_SECONDS (10) as in the
 * checkout bench; SQL_COSTS_RATES ('choreography=45,orchestration=20'), SQL_COSTS_ALONE_SECONDS (8),
 * SQL_COSTS_DATABASE_URL (a database of its own, recreated), and, below, SQL_COSTS_FROM (replay a
 * checkout bench recording instead), SQL_COSTS_GROW_SECONDS, SQL_COSTS_DROP and
 * SQL_COSTS_DROP_TRANSACTIONS. The machine is shared by whatever else runs: the load average is
 * printed, and a figure is worth comparing only with one taken beside it.
 */
const DATABASE_URL =
  process.env.SQL_COSTS_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/checkout_bench_sql_costs';
const MODES = (process.env.BENCH_CHECKOUT_MODES ?? 'choreography,orchestration').split(',');
/** The rate each mode is recorded at: the highest it sustains on the development machine. */
const RATES: Record<string, number> = {
  choreography: 45,
  orchestration: 20,
  ...Object.fromEntries(
    (process.env.SQL_COSTS_RATES ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.split('=')[0].trim(), Number(pair.split('=')[1])]),
  ),
};
const RECORD_SECONDS = Number(process.env.BENCH_RECORD_SECONDS ?? 4);
const REPLAY_SECONDS = Number(process.env.BENCH_REPLAY_SECONDS ?? 10);
/** The same replay on one connection: each statement's time with nothing else running. */
const ALONE_SECONDS = Number(process.env.SQL_COSTS_ALONE_SECONDS ?? 8);
/**
 * Seconds of the same replay, unmeasured, before the measured one: the checkout bench replays on
 * the database its ramp grew (outbox rows, and their dead versions until autovacuum comes), not
 * on a fresh one.
 */
const GROW_SECONDS = Number(process.env.SQL_COSTS_GROW_SECONDS ?? 0);
const SAMPLE_MS = 5;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

/** A statement's text with its parameters, literals and list lengths stripped: what one group shares. */
export function normalize(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(UUID, '?')
    .replace(/\$\d+/g, '$n')
    .replace(/\b\d+\b/g, 'N')
    .replace(/\(\s*\$n[^()]*\)/g, '($n…)')
    .replace(/\(\$n…\)(\s*,\s*\(\$n…\))+/g, '($n…), …');
}

/** BEGIN, COMMIT, SAVEPOINT ... as one word; a data statement as its verb and the tables it names. */
function describe(normalized: string): { control: boolean; label: string } {
  const control = CONTROL.exec(normalized);
  if (control) return { control: true, label: control[1].toUpperCase() };
  const verb = /^\s*(?:WITH\b.*?\)\s*)?(\w+)/i.exec(normalized)?.[1]?.toUpperCase() ?? '?';
  const tables = [
    ...new Set([...normalized.matchAll(/\b(?:FROM|INTO|UPDATE|JOIN)\s+("?\w+"?\."?\w+"?)/gi)].map((m) => m[1])),
  ].map((t) => t.replace(/"/g, ''));
  const locking = /FOR\s+UPDATE\s+SKIP\s+LOCKED/i.test(normalized)
    ? ' FOR UPDATE SKIP LOCKED'
    : /FOR\s+(NO\s+KEY\s+)?UPDATE/i.test(normalized)
      ? ' FOR UPDATE'
      : '';
  const conflict = /ON CONFLICT/i.test(normalized) ? ' ON CONFLICT' : '';
  // A statement on no table (a setting, an advisory lock) is told by its start.
  if (tables.length === 0) return { control: false, label: normalized.slice(0, 48) };
  return { control: false, label: `${verb} ${tables.join(', ')}${locking}${conflict}` };
}

/** The part of a checkout a statement serves, for the roll-up: what a change would take away together. */
const CATEGORIES: Array<[string, RegExp]> = [
  ['COMMIT', /^(COMMIT|END|ROLLBACK)\b/],
  ['BEGIN', /^(BEGIN|START TRANSACTION)\b/],
  ['SAVEPOINT / RELEASE', /^(SAVEPOINT|RELEASE)\b/],
  ['transaction bounds (set_config, SET LOCAL)', /^(SELECT set_config|SET LOCAL)/],
  ['advisory locks', /pg_advisory_xact_lock/],
  [
    'relay: claim, consumers, mark published',
    /published_at IS NULL|^SELECT .* FROM outbox\.consumers|SET published_at/,
  ],
  ['sweeps: redelivery, saga deadlines', /delivered_at IS NULL|SET delivered_at|next_deadline <=/],
  ['inbox insert (dead-letter check inside)', /^INSERT INTO outbox\.inbox/],
  ['outbox insert', /^INSERT INTO outbox\.messages/],
  ['saga row, steps, log', /checkout\.saga/],
  ['checkout row (read model): lock, read, update', /checkout\.checkouts/],
  ['payments, intents, gateway', /billing\./],
];

function categoryOf(normalized: string): string {
  const found = CATEGORIES.find(([, pattern]) => pattern.test(normalized));
  if (found) return found[0];
  return /\b(?:FROM|INTO|UPDATE)\s+"?(\w+)"?\./i.exec(normalized)?.[1] ?? 'other';
}

interface Timing {
  calls: number;
  ms: number;
}

/** A process's user + system CPU so far, in ms, from /proc (Linux); undefined once it is gone. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100;

/** The whole machine's busy and total CPU so far, in ms, from /proc/stat. */
function machineCpuMs(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0);
  const idle = ticks[3] + ticks[4];
  return { busy: ((total - idle) * 1_000) / CLOCK_TICKS, total: (total * 1_000) / CLOCK_TICKS };
}

/**
 * What the server's backends were doing, sample after sample: by statement group, running,
 * waiting for a lock, for the WAL or anything else while a statement runs; or idle in a
 * transaction, where the last statement is done and the server waits for the client's next one
 * (counted under that last statement). It also follows each backend's CPU, from /proc.
 */
class WaitSampler {
  readonly byText = new Map<string, Map<string, number>>();
  /** Every backend sample by state, idle between transactions included: how connection time is spent. */
  readonly states = new Map<string, number>();
  /** Lock waits by what waits and what holds the lock, in samples. */
  readonly blockers = new Map<string, number>();
  samples = 0;
  private startedAt = 0;
  private stoppedAt = 0;
  private readonly cpu = new Map<number, { first: number; last: number }>();
  private running = false;
  private loop?: Promise<void>;

  constructor(private readonly url: string) {}

  start(): void {
    this.startedAt = performance.now();
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.stoppedAt = performance.now();
  }

  /** The backend time one sample of one backend stands for: the sampled span over the samples. */
  get msPerSample(): number {
    return (this.stoppedAt - this.startedAt) / this.samples;
  }

  /** The backends' CPU while they were sampled, in ms (a backend's last tenth of a second or so escapes). */
  backendCpuMs(): number {
    return [...this.cpu.values()].reduce((sum, { first, last }) => sum + last - first, 0);
  }

  private async run(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    await client.connect();
    try {
      while (this.running) {
        const { rows } = await client.query<{
          pid: number;
          state: string | null;
          wait_event_type: string | null;
          wait_event: string | null;
          query: string;
          blockers: number[] | null;
        }>(
          `SELECT pid, state, wait_event_type, wait_event, query,
                  CASE WHEN wait_event_type = 'Lock' THEN pg_blocking_pids(pid) END AS blockers
             FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        );
        this.samples += 1;
        const byPid = new Map(rows.map((row) => [row.pid, row]));
        for (const row of rows) {
          // Who a lock wait waits for, and what that one is doing: running, or idle in its transaction.
          for (const blocker of (row.blockers ?? []).map((pid) => byPid.get(pid))) {
            const key = blocker
              ? `${normalize(row.query).slice(0, 60)} <- ${WaitSampler.stateOf(blocker)} after ${normalize(blocker.query).slice(0, 60)}`
              : `${normalize(row.query).slice(0, 60)} <- another database's backend`;
            this.blockers.set(key, (this.blockers.get(key) ?? 0) + 1);
          }
          const state = WaitSampler.stateOf(row);
          this.states.set(state, (this.states.get(state) ?? 0) + 1);
          if (this.samples % 10 === 0) this.followCpu(row.pid);
          if (state === 'idle') continue;
          const key = normalize(row.query);
          const states = this.byText.get(key) ?? new Map<string, number>();
          states.set(state, (states.get(state) ?? 0) + 1);
          this.byText.set(key, states);
        }
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    } finally {
      await client.end();
    }
  }

  private followCpu(pid: number): void {
    const ms = processCpuMs(pid);
    if (ms === undefined) return;
    const seen = this.cpu.get(pid);
    if (seen) seen.last = ms;
    else this.cpu.set(pid, { first: ms, last: ms });
  }

  private static stateOf(row: { state: string | null; wait_event_type: string | null; wait_event: string | null }) {
    if (row.state === 'idle in transaction') return IDLE_IN_TRANSACTION;
    if (row.state !== 'active') return 'idle';
    if (!row.wait_event_type) return 'running';
    if (row.wait_event_type === 'Lock') return `lock ${row.wait_event}`;
    return `${row.wait_event_type} ${row.wait_event}`;
  }

  /**
   * The samples of each group, matched by text; pg_stat_activity cuts long texts (1 kB), so an
   * unknown text is matched to the group it begins.
   */
  byGroup(texts: string[]): Map<string, Map<string, number>> {
    const result = new Map<string, Map<string, number>>();
    for (const [sampled, states] of this.byText) {
      const stem = sampled.slice(0, Math.max(20, sampled.length - 40));
      const text = texts.includes(sampled) ? sampled : (texts.find((t) => t.startsWith(stem)) ?? `(other) ${sampled}`);
      const into = result.get(text) ?? new Map<string, number>();
      for (const [state, count] of states) into.set(state, (into.get(state) ?? 0) + count);
      result.set(text, into);
    }
    return result;
  }
}
const IDLE_IN_TRANSACTION = 'client (idle in transaction)';

interface TableCounters {
  seq_scan: number;
  seq_tup_read: number;
  idx_scan: number;
  n_tup_ins: number;
  n_tup_upd: number;
  n_tup_hot_upd: number;
  n_tup_del: number;
  n_live_tup: number;
}

async function tableCounters(client: Client): Promise<Map<string, TableCounters>> {
  const { rows } = await client.query<TableCounters & { name: string }>(
    `SELECT schemaname || '.' || relname AS name, seq_scan::float8 AS seq_scan, seq_tup_read::float8 AS seq_tup_read,
            coalesce(idx_scan, 0)::float8 AS idx_scan, n_tup_ins::float8 AS n_tup_ins, n_tup_upd::float8 AS n_tup_upd,
            n_tup_hot_upd::float8 AS n_tup_hot_upd, n_tup_del::float8 AS n_tup_del, n_live_tup::float8 AS n_live_tup
       FROM pg_stat_user_tables`,
  );
  return new Map(rows.map(({ name, ...counters }) => [name, counters]));
}

/** The whole cluster's WAL position and syncs: other databases' work counts too, on a shared machine. */
async function walCounters(client: Client): Promise<{ lsn: string; syncs: number }> {
  const { rows } = await client.query<{ lsn: string; syncs: number }>(
    `SELECT pg_current_wal_lsn()::text AS lsn, wal_sync::float8 AS syncs FROM pg_stat_wal`,
  );
  return rows[0];
}

interface PlanSummary {
  how: 'analyze' | 'plan' | 'none';
  nodes: string[];
  seqScans: string[];
  executionMs?: number;
  planningMs?: number;
  sharedHit?: number;
  sharedRead?: number;
  error?: string;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
}

function walk(node: PlanNode, into: string[]): void {
  into.push(
    `${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`,
  );
  for (const child of node.Plans ?? []) walk(child, into);
}

/**
 * One statement of a group, explained on the grown data: executed and rolled back where it can be
 * (with its recorded parameters; an insert of a row that exists already cannot), planned only
 * where it cannot.
 */
async function explain(client: Client, query: RecordedQuery): Promise<PlanSummary> {
  const values = query.values.map((value, index) =>
    value === null ? null : query.binary?.includes(index) ? Buffer.from(value, 'base64') : value,
  );
  const summarize = (how: PlanSummary['how'], result: { 'QUERY PLAN': unknown }[]): PlanSummary => {
    const [top] = result[0]['QUERY PLAN'] as Array<{
      Plan: PlanNode;
      'Execution Time'?: number;
      'Planning Time'?: number;
    }>;
    const nodes: string[] = [];
    walk(top.Plan, nodes);
    return {
      how,
      nodes,
      seqScans: nodes.filter((n) => n.startsWith('Seq Scan')),
      executionMs: top['Execution Time'],
      planningMs: top['Planning Time'],
      sharedHit: top.Plan['Shared Hit Blocks'],
      sharedRead: top.Plan['Shared Read Blocks'],
    };
  };
  let firstError = '';
  for (const how of ['analyze', 'plan'] as const) {
    const options = how === 'analyze' ? 'ANALYZE, BUFFERS, FORMAT JSON' : 'FORMAT JSON';
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (${options}) ${query.text}`, values);
      return summarize(how, rows);
    } catch (error) {
      firstError ||= String(error);
    } finally {
      await client.query('ROLLBACK');
    }
  }
  return { how: 'none', nodes: [], seqScans: [], error: firstError };
}

async function untilFinished(client: Client, ids: string[]): Promise<void> {
  await until(
    async () => {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM checkout.checkouts WHERE id = ANY($1::uuid[]) AND status = ANY($2)`,
        [ids, FINAL_STATUSES],
      );
      return rows[0].n === ids.length;
    },
    120_000,
    100,
  );
}

interface Recorded {
  file: string;
  checkouts: number;
  buyers: string[];
  live: WaitSampler;
}

/** The app on a fresh database, warmed up, and the SQL of RECORD_SECONDS of checkouts at `rate`. */
/** The app, as the checkout bench starts it, on a database recreated for it (which it migrates). */
async function freshApp(mode: string, redis: RedisServer): Promise<ProbedApp> {
  phase(`${mode}: recreating ${DATABASE_URL}, starting the app`);
  await recreateDatabase(DATABASE_URL);
  await redis.flushAll();
  return ProbedApp.start({
    DATABASE_URL,
    REDIS_URL: redis.url,
    ...PROBED_APP_ENV,
  });
}

async function record(mode: string, rate: number, redis: RedisServer, file: string): Promise<Recorded> {
  const app = await freshApp(mode, redis);
  const monitor = new Client({ connectionString: DATABASE_URL });
  await monitor.connect();
  const live = new WaitSampler(DATABASE_URL);
  try {
    const load = new CheckoutLoad([app.url], ADMIN_TOKEN, parseMix('happy'));
    await load.signUp();
    phase(`${mode}: warming up, 10 checkouts/s for 3 s`);
    await untilFinished(
      monitor,
      (await load.offer(mode, 10, 3)).flatMap((o) => (o.id ? [o.id] : [])),
    );
    phase(`${mode}: recording ${rate * RECORD_SECONDS} checkouts at ${rate}/s, sampling pg_stat_activity`);
    live.start();
    await app.startRecording();
    const ids = (await load.offer(mode, rate, RECORD_SECONDS)).flatMap((o) => (o.id ? [o.id] : []));
    await untilFinished(monitor, ids);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // what follows a checkout's last step
    await app.stopRecording(file);
    await live.stop();
    return { file, checkouts: ids.length, buyers: load.buyerIds(), live };
  } finally {
    await monitor.end();
    await app.stop();
  }
}

/**
 * A recording made elsewhere (`npm run bench -- checkout` keeps its own in bench/results/), to
 * be replayed here: a fresh database the app migrates, and the buyers it names, who existed
 * before its checkouts (a buyer is whoever a statement on identity.users looks up by id).
 */
async function fromFile(mode: string, redis: RedisServer, file: string, checkouts: number): Promise<Recorded> {
  await (await freshApp(mode, redis)).stop();
  const buyers = new Set<string>();
  for (const query of JSON.parse(readFileSync(file, 'utf8')) as RecordedQuery[])
    if (/FROM\s+"?identity"?\."?users"?/i.test(query.text) && query.values[0])
      buyers.add(query.values[0].toLowerCase());
  const client = new Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO identity.users (id, email, name, country)
       SELECT id, 'replay-' || id || '@example.com', 'A Replayed Buyer', 'PT' FROM unnest($1::uuid[]) AS id`,
      [[...buyers]],
    );
  } finally {
    await client.end();
  }
  phase(`${mode}: replaying ${file} (${checkouts} checkouts, ${buyers.size} buyers)`);
  // Nothing was sampled while it was recorded: the live columns stay empty.
  return { file, checkouts, buyers: [...buyers], live: new WaitSampler(DATABASE_URL) };
}

/**
 * What if some statements were not sent: `SQL_COSTS_DROP` leaves out every statement whose text
 * (parameters stripped) it matches, `SQL_COSTS_DROP_TRANSACTIONS` every transaction with such a
 * statement. The replay then says what those round trips cost, at most: their work is gone too.
 */
const DROP = process.env.SQL_COSTS_DROP ? new RegExp(process.env.SQL_COSTS_DROP, 'i') : undefined;
const DROP_TRANSACTIONS = process.env.SQL_COSTS_DROP_TRANSACTIONS
  ? new RegExp(process.env.SQL_COSTS_DROP_TRANSACTIONS, 'i')
  : undefined;

function withoutDropped(recording: Recording): Recording {
  if (!DROP && !DROP_TRANSACTIONS) return recording;
  const units = recording.units
    .filter((unit) => !DROP_TRANSACTIONS || !unit.queries.some((q) => DROP_TRANSACTIONS.test(normalize(q.text))))
    .map((unit) => ({ ...unit, queries: unit.queries.filter((q) => !DROP || !DROP.test(normalize(q.text))) }))
    .filter((unit) => unit.queries.length > 0);
  const statements = units.reduce((sum, unit) => sum + unit.queries.length, 0);
  phase(`left out ${recording.statements - statements} of ${recording.statements} statements`);
  return { ...recording, units, statements };
}

/** `SQL_COSTS_FROM='orchestration=bench/results/checkout-sql-orchestration-....json:80'`: recordings to replay instead. */
const FROM: Record<string, { file: string; checkouts: number }> = Object.fromEntries(
  (process.env.SQL_COSTS_FROM ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const [mode, rest] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      const at = rest.lastIndexOf(':');
      return [mode.trim(), { file: rest.slice(0, at), checkouts: Number(rest.slice(at + 1)) }];
    }),
);

interface GroupReport {
  id: number;
  label: string;
  text: string;
  control: boolean;
  perCheckout: number;
  /** Round-trip ms per checkout in the replay at the app's concurrency, and per call. */
  msPerCheckout: number;
  msPerCall: number;
  /** Per call on one connection, nothing else running. */
  aloneMsPerCall?: number;
  /** While the statement ran on the server, in the replay: shares of running, lock waits, WAL waits... */
  replayStates: Record<string, number>;
  /** Of the group's samples in the replay, the share where it was done and the server waited for the client. */
  replayClientShare: number;
  /** The same two in the live app while it was recorded. */
  liveStates: Record<string, number>;
  liveClientShare: number;
  /** Backend time per checkout the live app spent waiting for a lock in this statement. */
  liveLockMsPerCheckout: number;
  category: string;
  /** The backends' CPU per checkout charged to the group by its share of the samples where it ran. */
  serverCpuMsPerCheckout: number;
  plan?: PlanSummary;
}

/** Shares of the samples where the statement was on the server (running or waiting in it), and the rest. */
function split(states: Map<string, number> | undefined): { inStatement: Record<string, number>; clientShare: number } {
  if (!states) return { inStatement: {}, clientShare: NaN };
  const all = [...states.values()].reduce((sum, n) => sum + n, 0);
  const client = states.get(IDLE_IN_TRANSACTION) ?? 0;
  const inStatement = Object.fromEntries(
    [...states]
      .filter(([state]) => state !== IDLE_IN_TRANSACTION)
      .sort((a, b) => b[1] - a[1])
      .map(([state, n]) => [state, n / (all - client)]),
  );
  return { inStatement, clientShare: client / all };
}

const sumOf = (states: Record<string, number>, test: (state: string) => boolean) =>
  Object.entries(states)
    .filter(([state]) => test(state))
    .reduce((sum, [, share]) => sum + share, 0);
const isLock = (state: string) => state.startsWith('lock');
const isWal = (state: string) => /WAL/.test(state);

/** The transactions of one kind: the same statements (by group) in the same order. */
interface TransactionKind {
  groups: number[];
  perCheckout: number;
  roundTrips: number;
  msPerCheckout: number;
}

async function measureMode(mode: string, redis: RedisServer, stamp: string) {
  const rate = RATES[mode] ?? 20;
  const file = path.join(__dirname, 'results', `sql-costs-${mode}-${stamp}.json`);
  const from = FROM[mode];
  const recorded = from
    ? await fromFile(mode, redis, path.resolve(from.file), from.checkouts)
    : await record(mode, rate, redis, file);
  const recording: Recording = withoutDropped(readRecording([recorded.file]));
  const keep = new Set(recorded.buyers);
  const queries = recording.units.flatMap((unit) => unit.queries);
  const texts = new Map<RecordedQuery, string>(queries.map((q) => [q, normalize(q.text)]));
  const counts = new Map<string, number>();
  const samples = new Map<string, RecordedQuery>();
  for (const [query, text] of texts) {
    counts.set(text, (counts.get(text) ?? 0) + 1);
    if (!samples.has(text) && !query.failed) samples.set(text, query);
  }

  if (GROW_SECONDS > 0) {
    phase(`${mode}: growing the database first, ${GROW_SECONDS} s of the replay unmeasured`);
    await replay(DATABASE_URL, recording, recording.connections, GROW_SECONDS, keep);
  }
  const stats = new Client({ connectionString: DATABASE_URL });
  await stats.connect();
  try {
    const tablesBefore = await tableCounters(stats);
    const walBefore = await walCounters(stats);
    const contended = new Map<string, Timing>();
    const timeInto = (into: Map<string, Timing>) => (query: RecordedQuery, ms: number) => {
      const text = texts.get(query)!;
      const timing = into.get(text) ?? { calls: 0, ms: 0 };
      timing.calls += 1;
      timing.ms += ms;
      into.set(text, timing);
    };
    // Each transaction's time, by its first statement: a unit replayed is timed whole.
    const unitOf = new Map<RecordedQuery, Recording['units'][number]>();
    for (const unit of recording.units) for (const query of unit.queries) unitOf.set(query, unit);
    const unitTimes = new Map<Recording['units'][number], Timing>();
    const observe = (query: RecordedQuery, ms: number) => {
      timeInto(contended)(query, ms);
      const unit = unitOf.get(query)!;
      const timing = unitTimes.get(unit) ?? { calls: 0, ms: 0 };
      if (unit.queries[0] === query) timing.calls += 1;
      timing.ms += ms;
      unitTimes.set(unit, timing);
    };
    const sampler = new WaitSampler(DATABASE_URL);
    sampler.start();
    const machineBefore = machineCpuMs();
    const clientBefore = process.cpuUsage();
    const startedAt = performance.now();
    const result = await replay(DATABASE_URL, recording, recording.connections, REPLAY_SECONDS, keep, { observe });
    const replaySeconds = (performance.now() - startedAt) / 1_000;
    const clientCpu = process.cpuUsage(clientBefore);
    const machineAfter = machineCpuMs();
    await sampler.stop();
    // A backend publishes its table counters when it ends, at the latest: the replay's have.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const tablesAfter = await tableCounters(stats);
    const walAfter = await walCounters(stats);
    const checkoutsReplayed = result.copiesPerSecond * replaySeconds * recorded.checkouts;

    phase(`${mode}: the same replay on one connection, ${ALONE_SECONDS} s`);
    const alone = new Map<string, Timing>();
    const aloneResult = await replay(DATABASE_URL, recording, 1, ALONE_SECONDS, keep, { observe: timeInto(alone) });

    phase(`${mode}: explaining one statement of each group`);
    const plans = new Map<string, PlanSummary>();
    for (const [text, query] of samples) if (!describe(text).control) plans.set(text, await explain(stats, query));

    const allTexts = [...counts.keys()];
    const live = recorded.live.byGroup(allTexts);
    const inReplay = sampler.byGroup(allTexts);
    const backendCpuPerCheckout = sampler.backendCpuMs() / checkoutsReplayed;
    const runningSamples = (text: string) => inReplay.get(text)?.get('running') ?? 0;
    const allRunning = allTexts.reduce((sum, text) => sum + runningSamples(text), 0);
    const groups: GroupReport[] = allTexts
      .map((text) => {
        const perCheckout = counts.get(text)! / recorded.checkouts;
        const timing = contended.get(text);
        const msPerCall = timing ? timing.ms / timing.calls : NaN;
        const aloneTiming = alone.get(text);
        const replaySplit = split(inReplay.get(text));
        const liveSplit = split(live.get(text));
        return {
          id: 0,
          ...describe(text),
          text,
          perCheckout,
          msPerCheckout: msPerCall * perCheckout,
          msPerCall,
          aloneMsPerCall: aloneTiming ? aloneTiming.ms / aloneTiming.calls : undefined,
          replayStates: replaySplit.inStatement,
          replayClientShare: replaySplit.clientShare,
          liveStates: liveSplit.inStatement,
          liveClientShare: liveSplit.clientShare,
          liveLockMsPerCheckout:
            ([...(live.get(text) ?? new Map<string, number>())]
              .filter(([state]) => isLock(state))
              .reduce((sum, [, count]) => sum + count, 0) *
              recorded.live.msPerSample) /
            recorded.checkouts,
          category: categoryOf(text),
          serverCpuMsPerCheckout: (backendCpuPerCheckout * runningSamples(text)) / allRunning,
          plan: plans.get(text),
        };
      })
      .sort((a, b) => (b.msPerCheckout || 0) - (a.msPerCheckout || 0))
      .map((group, index) => ({ ...group, id: index + 1 }));
    const idOf = new Map(groups.map((g) => [g.text, g.id]));
    const categories = [
      ...groups
        .reduce((into, g) => {
          const c = into.get(g.category) ?? { name: g.category, roundTrips: 0, ms: 0, aloneMs: 0, liveLockMs: 0 };
          c.roundTrips += g.perCheckout;
          c.ms += g.msPerCheckout || 0;
          c.aloneMs += (g.aloneMsPerCall ?? 0) * g.perCheckout;
          c.liveLockMs += g.liveLockMsPerCheckout;
          return into.set(g.category, c);
        }, new Map<string, { name: string; roundTrips: number; ms: number; aloneMs: number; liveLockMs: number }>())
        .values(),
    ].sort((a, b) => b.ms - a.ms);

    const kinds = new Map<string, TransactionKind & { ms: number; replayed: number }>();
    for (const unit of recording.units) {
      const ids = unit.queries.map((q) => idOf.get(texts.get(q)!)!);
      const key = ids.join(' ');
      const kind = kinds.get(key) ?? {
        groups: ids,
        perCheckout: 0,
        roundTrips: ids.length,
        msPerCheckout: 0,
        ms: 0,
        replayed: 0,
      };
      kind.perCheckout += 1 / recorded.checkouts;
      const timing = unitTimes.get(unit);
      kind.ms += timing?.ms ?? 0;
      kind.replayed += timing?.calls ?? 0;
      kinds.set(key, kind);
    }
    const transactionKinds: TransactionKind[] = [...kinds.values()]
      .map(({ ms, replayed, ...kind }) => ({ ...kind, msPerCheckout: (ms / replayed) * kind.perCheckout }))
      .sort((a, b) => (b.msPerCheckout || 0) - (a.msPerCheckout || 0));

    const tables = [...tablesAfter]
      .map(([name, after]) => {
        const before = tablesBefore.get(name);
        const per = (key: keyof TableCounters) => (after[key] - (before?.[key] ?? 0)) / checkoutsReplayed;
        return {
          name,
          rows: after.n_live_tup,
          seqScans: per('seq_scan'),
          seqRowsRead: per('seq_tup_read'),
          indexScans: per('idx_scan'),
          inserted: per('n_tup_ins'),
          updated: per('n_tup_upd'),
          hotUpdated: per('n_tup_hot_upd'),
          deleted: per('n_tup_del'),
        };
      })
      .filter((t) => t.seqScans + t.indexScans + t.inserted + t.updated + t.deleted > 0)
      .sort((a, b) => b.seqRowsRead - a.seqRowsRead || b.inserted + b.updated - a.inserted - a.updated);

    const { rows: wal } = await stats.query<{ bytes: number }>(`SELECT pg_wal_lsn_diff($1, $2)::float8 AS bytes`, [
      walAfter.lsn,
      walBefore.lsn,
    ]);
    const allSamples = [...sampler.states.values()].reduce((sum, n) => sum + n, 0);
    return {
      mode,
      rate,
      checkouts: recorded.checkouts,
      statements: recording.statements,
      transactions: recording.units.length,
      connections: recording.connections,
      ceiling: result.copiesPerSecond * recorded.checkouts,
      aloneCeiling: aloneResult.copiesPerSecond * recorded.checkouts,
      replay: { ...result, seconds: replaySeconds, checkoutsReplayed },
      /** Connection time per checkout in the replay: all of it, and the part in statements' round trips. */
      connectionMsPerCheckout: (recording.connections * 1_000) / (result.copiesPerSecond * recorded.checkouts),
      statementMsPerCheckout: groups.reduce((sum, g) => sum + (g.msPerCheckout || 0), 0),
      /** How the backends spent the replay, by state: a share of every sample of every backend. */
      backendStates: Object.fromEntries(
        [...sampler.states].sort((a, b) => b[1] - a[1]).map(([state, n]) => [state, n / allSamples]),
      ),
      cpuMsPerCheckout: {
        backends: backendCpuPerCheckout,
        replayClient: (clientCpu.user + clientCpu.system) / 1_000 / checkoutsReplayed,
        machine: (machineAfter.busy - machineBefore.busy) / checkoutsReplayed,
        machineBusyShare: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
      },
      walBytesPerCheckout: wal[0].bytes / checkoutsReplayed,
      walSyncsPerCheckout: (walAfter.syncs - walBefore.syncs) / checkoutsReplayed,
      replaySamples: sampler.samples,
      liveSamples: recorded.live.samples,
      liveStateMsPerCheckout: Object.fromEntries(
        [...recorded.live.states]
          .sort((a, b) => b[1] - a[1])
          .map(([state, count]) => [state, (count * recorded.live.msPerSample) / recorded.checkouts]),
      ),
      liveBlockersMsPerCheckout: Object.fromEntries(
        [...recorded.live.blockers]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 10)
          .map(([what, count]) => [what, (count * recorded.live.msPerSample) / recorded.checkouts]),
      ),
      categories,
      groups,
      transactionKinds,
      tables,
      recording: path.relative(process.cwd(), recorded.file),
    };
  } finally {
    await stats.end();
  }
}

type ModeCosts = Awaited<ReturnType<typeof measureMode>>;

function print(report: ModeCosts): void {
  const n = (value: number | undefined, digits = 2) =>
    value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
  const pct = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(0)}%` : '-');
  const out: string[] = [];
  const cpu = report.cpuMsPerCheckout;
  out.push(
    `\n== ${report.mode}: ${report.checkouts} checkouts recorded at ${report.rate}/s; ${report.statements} queries, ` +
      `${report.transactions} transactions, ${report.connections} connections`,
    `ceiling ${n(report.ceiling, 1)}/s at ${report.connections} connections (${n(report.aloneCeiling, 1)}/s on one); ` +
      `connection time ${n(report.connectionMsPerCheckout, 1)} ms per checkout, ${n(report.statementMsPerCheckout, 1)} ms of it in round trips`,
    `CPU per checkout: Postgres backends ${n(cpu.backends, 1)} ms, the replaying client ${n(cpu.replayClient, 1)} ms, ` +
      `the machine ${n(cpu.machine, 1)} ms (${pct(cpu.machineBusyShare)} busy); WAL ${n(report.walBytesPerCheckout / 1024, 1)} kB ` +
      `and ${n(report.walSyncsPerCheckout, 1)} syncs per checkout (whole cluster)`,
    `backends' time in the replay: ${Object.entries(report.backendStates)
      .filter(([, share]) => share >= 0.005)
      .map(([state, share]) => `${state} ${pct(share)}`)
      .join(', ')}`,
    '',
    `the live app's connections, ms per checkout: ${Object.entries(report.liveStateMsPerCheckout)
      .filter(([, ms]) => ms >= 0.5)
      .map(([state, ms]) => `${state} ${n(ms, 1)}`)
      .join(', ')}`,
    ...Object.entries(report.liveBlockersMsPerCheckout)
      .filter(([, ms]) => ms >= 0.5)
      .map(([what, ms]) => `  lock wait ${n(ms, 1)} ms: ${what}`),
    '',
    "by category, per checkout: round trips, replay ms (share), the same on one connection, the live app's lock waits",
    ...report.categories.map(
      (c) =>
        `  ${c.name.padEnd(48)} ${n(c.roundTrips, 1).padStart(6)} rt ${n(c.ms, 1).padStart(7)} ms ` +
        `(${pct(c.ms / report.statementMsPerCheckout).padStart(4)}) ${n(c.aloneMs, 1).padStart(6)} ms alone ` +
        `${n(c.liveLockMs, 1).padStart(6)} ms lock`,
    ),
    '',
    ' id | per co | ms/co  | share | ms/call | alone | srv cpu | in statement: run/lock/WAL | then client | live lock ms | plan             | group',
  );
  const total = report.statementMsPerCheckout;
  for (const g of report.groups) {
    const planNote = g.plan
      ? g.plan.seqScans.length > 0
        ? `SEQ ${g.plan.seqScans.map((s) => s.replace('Seq Scan on ', '')).join(',')}`
        : g.plan.how === 'none'
          ? 'not explained'
          : g.plan.how === 'analyze'
            ? `${n(g.plan.executionMs)} ms exec`
            : 'plan only'
      : '';
    const run = g.replayStates.running ?? 0;
    out.push(
      [
        String(g.id).padStart(3),
        n(g.perCheckout).padStart(6),
        n(g.msPerCheckout).padStart(6),
        pct(g.msPerCheckout / total).padStart(5),
        n(g.msPerCall, 3).padStart(7),
        n(g.aloneMsPerCall, 3).padStart(5),
        n(g.serverCpuMsPerCheckout).padStart(7),
        `${pct(run)} / ${pct(sumOf(g.replayStates, isLock))} / ${pct(sumOf(g.replayStates, isWal))}`.padStart(26),
        pct(g.replayClientShare).padStart(11),
        n(g.liveLockMsPerCheckout, 1).padStart(12),
        planNote.slice(0, 16).padEnd(16),
        g.label,
      ].join(' | '),
    );
  }
  out.push('', 'transactions by kind (their statements by group id), per checkout: count, round trips each, replay ms');
  for (const kind of report.transactionKinds.slice(0, 20))
    out.push(
      `  ${n(kind.perCheckout).padStart(6)} x ${String(kind.roundTrips).padStart(3)} rt ${n(kind.msPerCheckout).padStart(7)} ms  ${kind.groups.join(' ')}`.slice(
        0,
        220,
      ),
    );
  out.push(
    '',
    'tables, per checkout replayed: seq scans / rows read by them / index scans / ins / upd (hot) / del; live rows at the end',
  );
  for (const t of report.tables)
    out.push(
      `  ${t.name.padEnd(32)} ${n(t.seqScans).padStart(6)} / ${n(t.seqRowsRead, 0).padStart(7)} / ${n(t.indexScans).padStart(6)} / ` +
        `${n(t.inserted)} / ${n(t.updated)} (${n(t.hotUpdated)}) / ${n(t.deleted)}; ${t.rows} rows`,
    );
  out.push('', 'groups, by id:');
  for (const g of report.groups) out.push(`  ${String(g.id).padStart(3)}  ${g.text.slice(0, 300)}`);
  console.log(out.join('\n'));
}

async function main(): Promise<void> {
  mkdirSync(path.join(__dirname, 'results'), { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  // On a shared machine, others' work shows in every figure: say how busy it was.
  const loadAverageAtStart = machine().loadAverage;
  const redis = await RedisServer.start();
  const reports: ModeCosts[] = [];
  try {
    for (const mode of MODES) {
      const report = await measureMode(mode, redis, stamp);
      print(report);
      reports.push(report);
    }
  } finally {
    await redis.stop();
  }
  const file = path.join(__dirname, 'results', `sql-costs-${stamp}.json`);
  console.log(
    `\nload average ${loadAverageAtStart.join(' ')} at the start, ${machine().loadAverage.join(' ')} at the end`,
  );
  writeFileSync(file, JSON.stringify({ machine: machine(), loadAverageAtStart, reports }, null, 2));
  console.log(`\nFigures written to ${path.relative(process.cwd(), file)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
