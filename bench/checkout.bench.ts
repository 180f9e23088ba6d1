import { RedisServer } from '../test/support/redis-server';
import { distribution, type Distribution, machine, recreateBenchDatabase, statsSettle } from './bench-env';
import {
  CheckoutLoad,
  type Finished,
  idsOf,
  Monitor,
  type Offered,
  parseMix,
  redisCommandStats,
  tally,
} from './checkout-load';
import { cores, cpuTimes } from './machine-cpu';
import type { ProbeCounters } from './app-probe';
import { peerBenchmark } from './peer.bench';
import { PEER_ENGINES, type PeerEngineName } from './peers/peer-engine';
import { ADMIN_TOKEN, ProbedApp } from './probed-app';
import { phase } from './progress';
import { printTable } from './report';
import { VacuumStandIn } from './vacuum-stand-in';

/**
 * `npm run bench -- checkout`: whole checkouts as users run them, over REST against the app in
 * its own process with its default settings, per mode: the highest rate it sustains, how long
 * checkouts take at a light load, what one costs in Postgres statements, transactions and round
 * trips, in Redis commands and in CPU by part; then the same checkouts run by the peers
 * (bench/peers/: a DBOS workflow, graphile-worker jobs) measured the same way, ours against theirs;
 * then the Postgres-queue peer's drain beside our relay's.
 */
const MODES = (process.env.BENCH_CHECKOUT_MODES ?? 'choreography,orchestration').split(',').filter(Boolean);
/** The peers' checkouts, run like ours beside them; empty for none. */
const PEERS = (process.env.BENCH_CHECKOUT_PEERS ?? PEER_ENGINES.join(',')).split(',').filter(Boolean);
const MIX_TEXT = process.env.BENCH_CHECKOUT_MIX ?? 'happy';
const MIX = parseMix(MIX_TEXT);
const LIGHT_RATE = Number(process.env.BENCH_CHECKOUT_LIGHT_RATE ?? 10);
const WINDOW_SECONDS = Number(process.env.BENCH_CHECKOUT_SECONDS ?? 10);
const RAMP_FROM = Number(process.env.BENCH_RAMP_FROM ?? 20);
const RAMP_FACTOR = Number(process.env.BENCH_RAMP_FACTOR ?? 1.5);
const STEP_SECONDS = Number(process.env.BENCH_RAMP_STEP_SECONDS ?? 6);
const REFINE_STEPS = Number(process.env.BENCH_RAMP_REFINE ?? 2);
const RAMP_MAX = Number(process.env.BENCH_RAMP_MAX ?? 2_000);
const PROCESSES = Number(process.env.BENCH_APP_PROCESSES ?? 1);
const WITH_PEER = process.env.BENCH_CHECKOUT_PEER !== 'false';
const VACUUM_SECONDS = Number(process.env.BENCH_VACUUM_SECONDS ?? 10);
/** A step is sustained when its p99 stays within this and no backlog builds up. */
const P99_LIMIT_MS = 1_000;
/** More than this many seconds' worth of checkouts unfinished during a step: it cannot keep up. */
const BACKLOG_SECONDS = 3;

/** Settings for the experiments of whoever tunes the app: `BENCH_APP_ENV='A=1,B=2'`. */
function appEnvOverrides(): Record<string, string> {
  const text = process.env.BENCH_APP_ENV ?? '';
  return Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      }),
  );
}

/** Everything a checkout costs: totals so far in a reading (Counters), per checkout in a window's report. */
interface Costs {
  /** The app's, as its probe counts them (ProbeCounters), summed over its processes. */
  pgStatements: number;
  pgRoundTrips: number;
  pgTransactions: number;
  /** pg_stat_database's xact_commit, less the monitor's own statements. */
  xactCommit: number;
  redisCommands: number;
  redisRoundTrips: number;
  /** Redis's INFO commandstats calls, every command run (those inside BullMQ's scripts too). */
  redisExecuted: number;
  /** CPU of the app's processes. */
  cpuMs: number;
  pgCpuMs: number;
  redisCpuMs: number;
  /** The load generator's: the benchmark's own process. */
  loadCpuMs: number;
  /** Every process on the machine. */
  machineCpuMs: number;
}

/** A reading of every count, and when it was taken. */
interface Counters extends Costs {
  at: number;
}

/** How many cores' worth each part of the machine used while a load ran. */
interface Cores {
  app: number;
  postgres: number;
  redis: number;
  load: number;
  machine: number;
}

function coresBetween(before: Counters, after: Counters): Cores {
  const used = (key: keyof Costs) => (after[key] - before[key]) / (after.at - before.at);
  return {
    app: used('cpuMs'),
    postgres: used('pgCpuMs'),
    redis: used('redisCpuMs'),
    load: used('loadCpuMs'),
    machine: used('machineCpuMs'),
  };
}

const percentOfCore = (share: number) => `${(share * 100).toFixed(0)}%`;

/** "app 80%, Postgres 75%, Redis 15%, load 7% of a core; machine 1.85 of 2 cores" */
function describeCores(used: Cores): string {
  return (
    `app ${percentOfCore(used.app)}, Postgres ${percentOfCore(used.postgres)}, Redis ${percentOfCore(used.redis)}, ` +
    `load ${percentOfCore(used.load)} of a core; machine ${used.machine.toFixed(2)} of ${cores} cores`
  );
}

/** One way of checking out that the bench runs: one of our modes, or a peer's checkout (its requests say `orchestration`). */
interface Lane {
  name: string;
  mode: string;
  peer?: PeerEngineName;
}

interface Context {
  /** What the bench calls it. */
  name: string;
  /** What its requests ask for. */
  mode: string;
  apps: ProbedApp[];
  load: CheckoutLoad;
  monitor: Monitor;
  redis: RedisServer;
  /** What the app does per ms on its own (timers, sweeps, polling), to take off a window's counts. */
  idle?: Costs;
}

async function counters(context: Context): Promise<Counters> {
  const probes = await Promise.all(context.apps.map((app) => app.counters()));
  const sum = (key: keyof ProbeCounters) => probes.reduce((total, probe) => total + probe[key], 0);
  const committed = await context.monitor.committed();
  const redisByCommand = await redisCommandStats(context.redis);
  const cpu = await cpuTimes(context.redis);
  return {
    at: Date.now(),
    pgStatements: sum('pgStatements'),
    pgRoundTrips: sum('pgRoundTrips'),
    pgTransactions: sum('pgTransactions'),
    xactCommit: committed - context.monitor.queries,
    redisCommands: sum('redisCommands'),
    redisRoundTrips: sum('redisRoundTrips'),
    redisExecuted: Object.values(redisByCommand).reduce((sum, calls) => sum + calls, 0),
    cpuMs: sum('cpuMicros') / 1_000,
    pgCpuMs: cpu.postgres,
    redisCpuMs: cpu.redis,
    loadCpuMs: cpu.load,
    machineCpuMs: cpu.machine,
  };
}

/**
 * What happened between two readings, less what the idle app would have done meanwhile, per
 * `divisor`; never below 0 (a window whose idle share came out larger than all it did did nothing
 * beyond the idle app's own, within noise).
 */
function costs(before: Counters, after: Counters, divisor: number, idle?: Costs): Costs {
  const { at, ...per } = after;
  for (const key of Object.keys(per) as Array<keyof Costs>)
    per[key] = Math.max(0, after[key] - before[key] - (idle?.[key] ?? 0) * (at - before.at)) / divisor;
  return per;
}

function errorsOf(offered: Offered[]): number {
  return offered.filter((o) => o.status !== 202).length;
}

/** How long the checkouts of a window or a step took (their server-side durations). */
const durations = (finished: Finished[]): Distribution => distribution(finished.map((f) => f.durationMs));

interface WindowReport extends Distribution {
  rate: number;
  checkouts: number;
  errors: number;
  outcomes: Record<string, number>;
  perCheckout: Costs;
  /** The cores each part of the machine used during the window. */
  cores: Cores;
}

/** A steady load for WINDOW_SECONDS: how long checkouts take, and what each one costs. */
async function measureWindow(context: Context, rate: number, label: string): Promise<WindowReport> {
  const { name, mode, load, monitor } = context;
  phase(`${name}: ${label}, ${rate} checkouts/s for ${WINDOW_SECONDS} s`);
  await statsSettle();
  const before = await counters(context);
  const offered = await load.offer(mode, rate, WINDOW_SECONDS);
  const ids = idsOf(offered);
  await monitor.untilFinished(ids, `${name} ${label}`);
  await statsSettle();
  const after = await counters(context);
  const finished = await load.finished(mode, ids);
  const report: WindowReport = {
    rate,
    checkouts: ids.length,
    errors: errorsOf(offered),
    outcomes: tally(finished.map((f) => f.status)),
    ...durations(finished),
    perCheckout: costs(before, after, ids.length, context.idle),
    cores: coresBetween(before, after),
  };
  phase(
    `${name}: ${label}: p50 ${report.p50.toFixed(0)} ms, p99 ${report.p99.toFixed(0)} ms, ` +
      `${report.perCheckout.pgRoundTrips.toFixed(1)} Postgres round trips and ${report.perCheckout.redisCommands.toFixed(1)} Redis commands per checkout`,
  );
  return report;
}

interface Step {
  rate: number;
  sustained: boolean;
  why: string;
  /** Checkouts finished per second while the load lasted. */
  finishedPerSecond: number;
  /**
   * Every checkout of the step, over the time from its start to the last one's end: what the app
   * gets through when more is offered than it can do. A step offered too much finishes few while
   * it lasts (the checkouts queue up, and each takes seconds), and the rest right after.
   */
  throughput: number;
  p99?: number;
  /** The cores each part of the machine used while the load was offered. */
  cores: Cores;
}

/** One step of the ramp: is `rate` sustained (p99 within the limit, no backlog building up)? */
async function rampStep(context: Context, rate: number): Promise<Step> {
  const { name, mode, load, monitor } = context;
  const offered: Offered[] = [];
  let backlog = 0;
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    monitor
      .finishedCount(idsOf(offered))
      .then((done) => (backlog = offered.length - done))
      .catch(() => undefined)
      .finally(() => (polling = false));
  }, 500);
  const before = await counters(context);
  const started = Date.now();
  await load.offer(mode, rate, STEP_SECONDS, offered, () => backlog > rate * BACKLOG_SECONDS);
  const offerEnded = Date.now();
  clearInterval(poll);
  const used = coresBetween(before, await counters(context));
  const ids = idsOf(offered);
  const cutShort = offered.length < Math.round(rate * STEP_SECONDS);
  await monitor.untilFinished(ids, `${name} at ${rate}/s`, 180_000);
  const finished = await load.finished(mode, ids);
  const { p99 } = durations(finished);
  const finishedPerSecond =
    finished.filter((f) => f.finishedAt <= offerEnded).length / ((offerEnded - started) / 1_000);
  const lastEnded = Math.max(offerEnded, ...finished.map((f) => f.finishedAt));
  const throughput = finished.length / ((lastEnded - started) / 1_000);
  const errors = errorsOf(offered);
  const why = cutShort
    ? `backlog over ${BACKLOG_SECONDS} s of checkouts, stopped after ${((offerEnded - started) / 1_000).toFixed(1)} s`
    : errors > 0
      ? `${errors} requests not answered 202`
      : `p99 ${p99.toFixed(0)} ms`;
  const step: Step = {
    rate,
    sustained: !cutShort && errors === 0 && p99 <= P99_LIMIT_MS,
    why,
    finishedPerSecond,
    throughput,
    p99,
    cores: used,
  };
  phase(
    `${name}: ${rate}/s ${step.sustained ? 'sustained' : 'NOT sustained'} (${why}; ` +
      `${finishedPerSecond.toFixed(1)}/s finished meanwhile, all ${finished.length} at ${throughput.toFixed(1)}/s; ` +
      `${describeCores(used)})`,
  );
  return step;
}

/** Up by RAMP_FACTOR until a rate is not sustained, then a few steps between the last two. */
async function ramp(context: Context): Promise<{ steps: Step[]; highest?: Step; firstNot?: Step }> {
  const steps: Step[] = [];
  let highest: Step | undefined;
  let firstNot: Step | undefined;
  const tryRate = async (rate: number) => {
    const step = await rampStep(context, rate);
    steps.push(step);
    if (step.sustained) highest = step;
    else firstNot = step;
  };
  for (let rate = RAMP_FROM; rate <= RAMP_MAX && !firstNot; rate = Math.round(rate * RAMP_FACTOR)) await tryRate(rate);
  // Not even the first rate (a slow or busy machine): halve until one is sustained.
  // Not below 1/s: Math.round(1 / 2) is 1 again, which would never end.
  while (!highest && firstNot && firstNot.rate > 1) await tryRate(Math.round(firstNot.rate / 2));
  for (let i = 0; i < REFINE_STEPS && highest && firstNot; i += 1) {
    const rate = Math.round(Math.sqrt(highest.rate * firstNot.rate));
    if (rate <= highest.rate || rate >= firstNot.rate) break;
    await tryRate(rate);
  }
  return { steps, highest, firstNot };
}

interface ModeReport {
  /** Where the server does not vacuum on its own: the bench's VACUUMs, how many and how long in all. */
  vacuums?: { everySeconds: number; count: number; ms: number };
  light: WindowReport;
  steps: Step[];
  highestSustained: number;
  firstNotSustained?: { rate: number; finishedPerSecond: number; throughput: number; why: string };
  /** CPU ms a checkout cost each part at the highest rate sustained. */
  atHighest?: PartCosts;
}

/** CPU ms a checkout cost the app, Postgres and Redis. */
interface PartCosts {
  appMs: number;
  postgresMs: number;
  redisMs: number;
}

/** CPU ms a checkout cost the app, Postgres and Redis at a ramp step, from the cores each used then. */
const partCostsAt = (step: Step): PartCosts => ({
  appMs: (step.cores.app * 1_000) / step.rate,
  postgresMs: (step.cores.postgres * 1_000) / step.rate,
  redisMs: (step.cores.redis * 1_000) / step.rate,
});

async function runMode(lane: Lane, redis: RedisServer): Promise<ModeReport> {
  const { name, mode, peer } = lane;
  phase(`${name}: recreating the bench database, starting ${PROCESSES} app process(es)`);
  await recreateBenchDatabase();
  await redis.flushAll();
  const env = {
    REDIS_URL: redis.url,
    ...(peer ? { PEER: peer } : {}),
    ...appEnvOverrides(),
  };
  const entry = peer ? 'bench/peers/peer-main.ts' : 'src/main.ts';
  // The first process migrates the fresh database; the others find it done.
  const apps = [await ProbedApp.start(env, entry)];
  for (let i = 1; i < PROCESSES; i += 1) apps.push(await ProbedApp.start(env, entry));
  const monitor = await Monitor.connect();
  const vacuum = await VacuumStandIn.start(VACUUM_SECONDS);
  if (vacuum)
    phase(`${name}: the server's autovacuum is off: the bench vacuums its database every ${VACUUM_SECONDS} s`);
  const load = new CheckoutLoad(
    apps.map((app) => app.url),
    ADMIN_TOKEN,
    MIX,
  );
  const context: Context = { name, mode, apps, load, monitor, redis };
  try {
    await load.signUp();
    phase(`${name}: warming up, ${LIGHT_RATE} checkouts/s for 3 s`);
    await monitor.untilFinished(idsOf(await load.offer(mode, LIGHT_RATE, 3)), `${name} warm-up`);

    phase(`${name}: what the idle app does on its own, 2 s`);
    const idleWindow = async () => {
      await statsSettle();
      const idleFrom = await counters(context);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const idleTo = await counters(context);
      return costs(idleFrom, idleTo, idleTo.at - idleFrom.at);
    };
    context.idle = vacuum ? await vacuum.without(idleWindow) : await idleWindow();

    const light = await measureWindow(context, LIGHT_RATE, 'light load');
    phase(`${name}: ramp from ${RAMP_FROM}/s, x${RAMP_FACTOR} every ${STEP_SECONDS} s until it cannot keep up`);
    const { steps, highest, firstNot } = await ramp(context);
    const highestSustained = highest?.rate ?? 0;
    if (vacuum) phase(`${name}: ${vacuum.vacuums} vacuums, ${vacuum.ms} ms in all`);
    return {
      vacuums: vacuum && { everySeconds: VACUUM_SECONDS, count: vacuum.vacuums, ms: vacuum.ms },
      light,
      steps,
      highestSustained,
      firstNotSustained: firstNot && {
        rate: firstNot.rate,
        finishedPerSecond: firstNot.finishedPerSecond,
        throughput: firstNot.throughput,
        why: firstNot.why,
      },
      atHighest: highest && partCostsAt(highest),
    };
  } catch (error) {
    for (const [i, app] of apps.entries()) console.error(`app ${i + 1}, last lines:\n${app.tail()}`);
    throw error;
  } finally {
    await vacuum?.stop();
    await monitor.end();
    await Promise.all(apps.map((app) => app.stop()));
  }
}

function print(
  reports: Record<string, ModeReport>,
  started: ReturnType<typeof machine>,
  ended: ReturnType<typeof machine>,
): void {
  const modes = Object.keys(reports);
  const rows: string[][] = [['', ...modes]];
  const add = (label: string, value: (r: ModeReport) => string) =>
    rows.push([label, ...modes.map((m) => value(reports[m]))]);
  const n = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
  const times = (w: WindowReport) => `${n(w.p50)} / ${n(w.p95)} / ${n(w.p99)} ms`;
  const coresRow = (c: Cores) => [c.app, c.postgres, c.redis, c.load, c.machine].map((v) => n(v, 2)).join(' / ');
  const costRow = (w: WindowReport, pick: (c: Costs) => number[]) =>
    pick(w.perCheckout)
      .map((v) => n(v, 1))
      .join(' / ');
  add('VACUUM (ANALYZE) by the bench (the server has autovacuum off)', (r) =>
    r.vacuums ? `every ${r.vacuums.everySeconds} s: ${r.vacuums.count}, ${r.vacuums.ms} ms` : 'no',
  );
  add('highest sustained rate (p99 <= 1 s, no backlog)', (r) => `${r.highestSustained}/s`);
  add('first rate not sustained: finished/s meanwhile; all of it', (r) => {
    const step = r.firstNotSustained;
    return step ? `${step.rate}/s: ${n(step.finishedPerSecond, 1)}/s; ${n(step.throughput, 1)}/s` : '-';
  });
  add(`duration p50 / p95 / p99 at ${LIGHT_RATE}/s`, (r) => times(r.light));
  const at = `at ${LIGHT_RATE}/s`;
  add(`per checkout ${at}: Postgres statements / round trips`, (r) =>
    costRow(r.light, (c) => [c.pgStatements, c.pgRoundTrips]),
  );
  add(`per checkout ${at}: transactions, ours / pg_stat_database`, (r) =>
    costRow(r.light, (c) => [c.pgTransactions, c.xactCommit]),
  );
  add(`per checkout ${at}: Redis commands sent / round trips / run`, (r) =>
    costRow(r.light, (c) => [c.redisCommands, c.redisRoundTrips, c.redisExecuted]),
  );
  add(`per checkout ${at}: CPU ms, app / Postgres / Redis / load / machine`, (r) =>
    costRow(r.light, (c) => [c.cpuMs, c.pgCpuMs, c.redisCpuMs, c.loadCpuMs, c.machineCpuMs]),
  );
  add(`cores in use ${at}: app / Postgres / Redis / load / machine`, (r) => coresRow(r.light.cores));
  add('cores in use at the highest sustained rate', (r) => {
    const step = r.steps.find((s) => s.sustained && s.rate === r.highestSustained);
    return step ? coresRow(step.cores) : '-';
  });
  add('CPU ms a checkout at the highest sustained rate: app / Postgres / Redis = all', (r) => {
    const c = r.atHighest;
    return c ? `${[c.appMs, c.postgresMs, c.redisMs].map((v) => n(v, 1)).join(' / ')} = ${n(deploymentMs(c), 1)}` : '-';
  });
  console.log(
    `\ncheckout benchmark: mix ${MIX_TEXT}, ${PROCESSES} app process(es), ${new Date().toISOString()}\n` +
      `machine: ${started.cpus} x ${started.cpuModel}, ${started.memoryGb} GB, Node ${started.node}; ` +
      `load average ${started.loadAverage.join(' ')} at the start, ${ended.loadAverage.join(' ')} at the end; ` +
      `a fixed workload (bench-env's speedProbeMs) ${started.speedProbeMs} ms at the start, ${ended.speedProbeMs} ms at the end\n`,
  );
  printTable(rows, 'l' + 'r'.repeat(modes.length));
  const versus = comparisons(reports);
  if (versus.length > 0)
    console.log(`\nours against the peers, at the highest rate each sustained:\n  ${versus.join('\n  ')}`);
}

/** CPU ms a checkout of the app, Postgres and Redis together. */
const deploymentMs = (costs: PartCosts) => costs.appMs + costs.postgresMs + costs.redisMs;

/**
 * Each of our modes beside each peer: its highest sustained rate and its CPU a checkout (app,
 * Postgres and Redis together) as ratios of the peer's, and whether it is ahead on both.
 */
function comparisons(reports: Record<string, ModeReport>): string[] {
  const ours = MODES.filter((mode) => reports[mode]?.atHighest);
  const peers = PEERS.filter((peer) => reports[peer]?.atHighest);
  return ours.flatMap((mode) =>
    peers.map((peer) => {
      const rate = reports[mode].highestSustained / reports[peer].highestSustained;
      const cpu = deploymentMs(reports[mode].atHighest!) / deploymentMs(reports[peer].atHighest!);
      const verdict =
        rate > 1 && cpu < 1 ? 'ahead on both' : rate <= 1 && cpu >= 1 ? 'behind on both' : 'ahead on one only';
      return (
        `${mode} against ${peer}: highest sustained rate ${rate.toFixed(2)} x the peer's, ` +
        `CPU a checkout ${cpu.toFixed(2)} x the peer's (${deploymentMs(reports[mode].atHighest!).toFixed(1)} ms against ` +
        `${deploymentMs(reports[peer].atHighest!).toFixed(1)} ms): ${verdict}`
      );
    }),
  );
}

/** Our modes, then the peers', in that order. */
function lanes(): Lane[] {
  const unknown = PEERS.filter((peer) => !(PEER_ENGINES as readonly string[]).includes(peer));
  if (unknown.length > 0) throw new Error(`Unknown peer(s) ${unknown.join(', ')}; known: ${PEER_ENGINES.join(', ')}`);
  return [
    ...MODES.map((mode) => ({ name: mode, mode })),
    ...PEERS.map((peer) => ({ name: peer, mode: 'orchestration', peer: peer as PeerEngineName })),
  ];
}

export async function checkoutBenchmark(): Promise<Record<string, unknown>> {
  const started = machine();
  // Redis of its own: INFO commandstats counts a whole server's commands, the shared one's are others' too.
  const redis = await RedisServer.start();
  const reports: Record<string, ModeReport> = {};
  try {
    for (const lane of lanes()) reports[lane.name] = await runMode(lane, redis);
  } finally {
    await redis.stop();
  }
  const ended = machine();
  print(reports, started, ended);
  const peer = WITH_PEER ? await peerBenchmark() : undefined;
  return {
    machine: started,
    loadAverageAtEnd: ended.loadAverage,
    speedProbeMsAtEnd: ended.speedProbeMs,
    settings: {
      mix: MIX_TEXT,
      processes: PROCESSES,
      lightRate: LIGHT_RATE,
      windowSeconds: WINDOW_SECONDS,
      ramp: { from: RAMP_FROM, factor: RAMP_FACTOR, stepSeconds: STEP_SECONDS, refine: REFINE_STEPS },
      appEnv: appEnvOverrides(),
      vacuumSeconds: VACUUM_SECONDS,
    },
    modes: reports,
    comparisons: comparisons(reports),
    peer,
  };
}
