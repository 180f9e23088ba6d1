import { Logger, run, runMigrations, type Task } from 'graphile-worker';
import { Client, Pool } from 'pg';
import {
  BENCH_DATABASE_URL,
  cleanRedis,
  migrateBenchDatabase,
  distribution,
  openLoop,
  recreateBenchDatabase,
  recreateDatabase,
  statsSettle,
  transactionsCommitted,
  withDatabase,
} from './bench-env';
import { phase, track } from './progress';
import { printTable } from './report';
import { type Latency, latencyAt, LIGHT_RATE, LOAD_SECONDS, outboxDrain } from './relay-path';

/**
 * The peer: what a user would pick instead of an outbox in front of BullMQ, a Postgres job queue
 * whose enqueue joins the business transaction (graphile-worker, pinned in package.json), one
 * worker process with a no-op task, on a database of its own; beside it, our relay's drain and
 * its delay at a light load, in the same run.
 */
const JOBS = Number(process.env.BENCH_PEER_JOBS ?? 10_000);
const DRAIN_SECONDS = Number(process.env.BENCH_PEER_DRAIN_SECONDS ?? 10);
const CONCURRENCIES = (process.env.BENCH_PEER_CONCURRENCY ?? '20,50').split(',').map(Number);
/** Our side: the relay benchmark's (b) and (c), smaller. */
const OUR_EVENTS = Number(process.env.BENCH_PEER_OUR_EVENTS ?? 10_000);

const silent = new Logger(() => () => undefined);

/** The peer's database, `<bench database>_peer`, recreated for each measure. */
async function recreatePeerDatabase(): Promise<string> {
  const url = withDatabase(
    BENCH_DATABASE_URL,
    `${decodeURIComponent(new URL(BENCH_DATABASE_URL).pathname.slice(1))}_peer`,
  );
  await recreateDatabase(url);
  await runMigrations({ connectionString: url, logger: silent });
  return url;
}

/** One graphile-worker process on the peer's database, with its one task. */
const startWorker = (url: string, concurrency: number, noop: Task) =>
  run({
    connectionString: url,
    concurrency,
    maxPoolSize: concurrency + 2, // graphile-worker's advice: at least concurrency + 2
    noHandleSignals: true,
    logger: silent,
    taskList: { noop },
  });

/**
 * A backlog of JOBS no-op jobs, then one worker process at `concurrency` draining it: jobs per
 * second from the worker starting to the last job done, or to DRAIN_SECONDS if that comes first.
 */
async function peerDrain(
  concurrency: number,
): Promise<{ concurrency: number; jobsPerSecond: number; jobs: number; transactionsPerJob: number }> {
  const url = await recreatePeerDatabase();
  phase(`peer: graphile-worker, a backlog of ${JOBS} jobs drained at concurrency ${concurrency}`);
  const seed = new Client({ connectionString: url });
  await seed.connect();
  // add_jobs, the bulk form: one add_job per row would take longer than the drain.
  await seed.query(
    `SELECT count(*) FROM graphile_worker.add_jobs((
       SELECT array_agg(ROW('noop', json_build_object('seq', g, 'note', 'a payload of a typical size'),
                            NULL, NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec)
         FROM generate_series(1, $1::int) g))`,
    [JOBS],
  );
  await seed.end();
  await statsSettle();
  const committedBefore = await transactionsCommitted(url);
  let done = 0;
  const stopTracking = track(`peer: jobs done at concurrency ${concurrency}`, JOBS, () => done);
  const started = Date.now();
  const runner = await startWorker(url, concurrency, async () => void (done += 1));
  const deadline = started + DRAIN_SECONDS * 1_000;
  while (done < JOBS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  const jobsPerSecond = done / ((Date.now() - started) / 1_000);
  stopTracking();
  await runner.stop();
  await statsSettle();
  // Less the two readings themselves.
  const transactionsPerJob = ((await transactionsCommitted(url)) - committedBefore - 1) / done;
  return { concurrency, jobsPerSecond, jobs: done, transactionsPerJob };
}

/**
 * An open-loop load of `rate` transactions a second, each enqueueing one job with add_job
 * before it commits (enqueue in the business transaction, graphile-worker's selling point), for
 * LOAD_SECONDS: each job's delay runs from being enqueued to its task starting, as ours does.
 */
async function peerLatency(rate: number, concurrency: number): Promise<Omit<Latency, 'relay' | 'consume'>> {
  const url = await recreatePeerDatabase();
  const total = Math.max(1, Math.round(rate * LOAD_SECONDS));
  phase(`peer: graphile-worker delay at ${rate} jobs/s, ${total} one-job transactions over ${LOAD_SECONDS} s`);
  const delays: number[] = [];
  const runner = await startWorker(
    url,
    concurrency,
    async (payload) => void delays.push(Date.now() - (payload as { enqueuedAt: number }).enqueuedAt),
  );
  const producers = new Pool({ connectionString: url, max: 16 });
  const stopTracking = track(`peer: ${rate} jobs/s, started`, total, () => delays.length);
  const cpuAtStart = process.cpuUsage();
  const started = Date.now();
  const commits: Array<Promise<void>> = [];
  const enqueue = async () => {
    const client = await producers.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT graphile_worker.add_job('noop', $1::json)`, [
        JSON.stringify({ enqueuedAt: Date.now() }),
      ]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };
  await openLoop(rate, total, () => commits.push(enqueue()));
  await Promise.all(commits);
  const deadline = Date.now() + 60_000;
  while (delays.length < total && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  stopTracking();
  const cpu = process.cpuUsage(cpuAtStart);
  await runner.stop();
  await producers.end();
  return {
    rate,
    ...distribution(delays),
    nodeCpu: (cpu.user + cpu.system) / 1_000 / (Date.now() - started),
  };
}

/** `npm run bench -- peer`, and the end of `npm run bench -- checkout`. */
export async function peerBenchmark(): Promise<Record<string, unknown>> {
  phase('peer: our relay first, on the bench database');
  await recreateBenchDatabase();
  await migrateBenchDatabase();
  let ours: { eventsPerSecond: number; transactionsPerEvent: number; light: Latency };
  try {
    const committedBefore = await transactionsCommitted(BENCH_DATABASE_URL);
    const { eventsPerSecond, app } = await outboxDrain(OUR_EVENTS, 'peer:');
    await statsSettle();
    // The seed, the app's start and its idle timers are in it too: a few dozen against thousands.
    const transactionsPerEvent = ((await transactionsCommitted(BENCH_DATABASE_URL)) - committedBefore - 1) / OUR_EVENTS;
    const light = await latencyAt(app, 'light', 'peer:');
    await app.close();
    ours = { eventsPerSecond, transactionsPerEvent, light };
  } finally {
    await cleanRedis();
  }
  const drains = [];
  for (const concurrency of CONCURRENCIES) drains.push(await peerDrain(concurrency));
  const peerLight = await peerLatency(LIGHT_RATE, CONCURRENCIES[0]);
  phase('peer: done');

  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const rows = [
    [
      `ours: outbox -> relay -> BullMQ -> inbox, ${OUR_EVENTS} backlog`,
      `${ours.eventsPerSecond.toFixed(0)} events/s`,
      `${ours.transactionsPerEvent.toFixed(2)} Postgres transactions per event`,
    ],
    ...drains.map((d) => [
      `peer: graphile-worker, concurrency ${d.concurrency}`,
      `${d.jobsPerSecond.toFixed(0)} jobs/s`,
      `ours is ${(ours.eventsPerSecond / d.jobsPerSecond).toFixed(1)} x; ${d.transactionsPerJob.toFixed(2)} Postgres transactions per job`,
    ]),
    [
      `ours: delay at ${LIGHT_RATE}/s, p50 / p99`,
      `${ms(ours.light.p50)} / ${ms(ours.light.p99)}`,
      `relay stage ${ms(ours.light.relay.p50)} / ${ms(ours.light.relay.p99)}`,
    ],
    [
      `peer: delay at ${LIGHT_RATE}/s, p50 / p99 (concurrency ${CONCURRENCIES[0]})`,
      `${ms(peerLight.p50)} / ${ms(peerLight.p99)}`,
      `max ${ms(peerLight.max)}`,
    ],
  ];
  console.log(
    `\npeer benchmark: our relay beside graphile-worker (one process, no-op task), ${new Date().toISOString()}\n`,
  );
  printTable(rows, 'lrl');
  return { ours, peer: { drains, light: peerLight } };
}
