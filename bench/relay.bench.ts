import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { Client } from 'pg';
import { OutboxPublisher } from '../src/infra/outbox';
import { OUTBOX_CHANNEL } from '../src/infra/outbox/relaying/outbox.relay';
import {
  BENCH_DATABASE_URL,
  BENCH_REDIS_URL,
  benchPrefix,
  cleanRedis,
  migrateBenchDatabase,
  recreateBenchDatabase,
  startApp,
  until,
} from './bench-env';
import { phase, track } from './progress';
import { BenchHappened, BenchModule, type Latency, latencyAt, outboxDrain, payload } from './relay-path';
import { relayRows, relaysSideBySide, relaysTable } from './relays.bench';
import { tracingCost } from './tracing.bench';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const CONCURRENCY = Number(process.env.OUTBOX_WORKER_CONCURRENCY ?? 64); // the workers' default
const RELAY_BATCH = 500; // the relay's default (OUTBOX_RELAY_BATCH_SIZE)
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const PRODUCERS = 16;
const PRODUCE_SECONDS = Number(process.env.BENCH_PRODUCE_SECONDS ?? 4);
const LIGHT_RATE = Number(process.env.BENCH_LIGHT_RATE ?? 50);

/**
 * (a) BullMQ alone, doing what our relay and workers do minus Postgres: bulk-adding a backlog of
 * jobs like ours in batches of the relay's size while a no-op worker of the same concurrency
 * drains them, from the first add to the last job handled.
 */
async function rawBullmq(): Promise<{ eventsPerSecond: number }> {
  const connection = new IORedis(BENCH_REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('raw', { connection, prefix: benchPrefix });
  let handled = 0;
  const worker = new Worker('raw', async () => void (handled += 1), {
    connection,
    prefix: benchPrefix,
    concurrency: CONCURRENCY,
  });
  await worker.waitUntilReady();
  phase(`(a) BullMQ alone: adding ${EVENTS} jobs while a no-op worker drains them`);
  const stopTracking = track('(a) jobs handled', EVENTS, () => handled);
  const started = Date.now();
  for (let start = 0; start < EVENTS; start += RELAY_BATCH) {
    await queue.addBulk(
      Array.from({ length: Math.min(RELAY_BATCH, EVENTS - start) }, (_, i) => {
        const id = randomUUID();
        return {
          name: BenchHappened.type,
          data: {
            id,
            kind: 'event',
            type: BenchHappened.type,
            aggregateId: String(start + i),
            payload: payload(start + i),
            correlationId: 'bench',
            causationId: null,
            headers: {},
            createdAt: new Date().toISOString(),
            consumer: 'bench.noop',
          },
          opts: {
            jobId: `${id}--bench.noop`,
            attempts: 5,
            backoff: { type: 'exponential', delay: 500 },
            removeOnComplete: true,
            removeOnFail: true,
          },
        };
      }),
    );
  }
  await until(() => handled >= EVENTS, 600_000);
  stopTracking();
  const eventsPerSecond = EVENTS / ((Date.now() - started) / 1_000);
  await worker.close();
  await queue.close();
  connection.disconnect();
  return { eventsPerSecond };
}

/**
 * What one round trip costs this process here, sequentially: the unit that every figure above is
 * made of (a relayed and handled message takes a few of them to Postgres and to Redis).
 */
async function roundTrips(): Promise<{
  postgresMicros: number;
  redisMicros: number;
  cpuPostgres: number;
  cpuRedis: number;
}> {
  const N = 2_000;
  const measure = async (work: () => Promise<unknown>) => {
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < N; i += 1) await work();
    const used = process.cpuUsage(cpu);
    return { micros: Number(process.hrtime.bigint() - started) / 1_000 / N, cpu: (used.user + used.system) / N };
  };
  const client = new Client({ connectionString: BENCH_DATABASE_URL });
  await client.connect();
  const postgres = await measure(() => client.query('SELECT $1::int', [1]));
  await client.end();
  const redis = new IORedis(BENCH_REDIS_URL);
  const redisTrip = await measure(() => redis.ping());
  redis.disconnect();
  return {
    postgresMicros: postgres.micros,
    redisMicros: redisTrip.micros,
    cpuPostgres: postgres.cpu,
    cpuRedis: redisTrip.cpu,
  };
}

type NotifyVariant = 'inTransaction' | 'withNotify' | 'withoutNotify';

/**
 * (d) What waking the relays costs the producers, in commits per second of PRODUCERS concurrent
 * one-event transactions, with a relay LISTENing: NOTIFY inside each transaction (the design we
 * rejected), our signal (NOTIFY after commit, coalesced; sent by processes without a relay, as
 * this api-only one), and no NOTIFY at all. The variants alternate, three rounds each.
 */
async function notifyCost(): Promise<Record<NotifyVariant, number>> {
  const listener = new Client({ connectionString: BENCH_DATABASE_URL });
  await listener.connect();
  await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  const rates: Record<NotifyVariant, number[]> = { inTransaction: [], withNotify: [], withoutNotify: [] };
  for (let round = 0; round < 3; round += 1) {
    for (const variant of Object.keys(rates) as NotifyVariant[]) {
      phase(`(d) NOTIFY cost, round ${round + 1} of 3: ${variant}, ${PRODUCERS} producers for ${PRODUCE_SECONDS} s`);
      const app = await startApp(
        { APP_ROLES: 'api', OUTBOX_NOTIFY: String(variant === 'withNotify'), DATABASE_POOL_SIZE: String(PRODUCERS) },
        [BenchModule],
      );
      const txHost: TransactionHost<TransactionalAdapterTypeOrm> = app.get(TransactionHost);
      const publisher = app.get(OutboxPublisher);
      let commits = 0;
      const deadline = Date.now() + PRODUCE_SECONDS * 1_000;
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (Date.now() < deadline) {
            await txHost.withTransaction(async () => {
              await publisher.publish(BenchHappened, payload(commits), { aggregateId: 'producer' });
              if (variant === 'inTransaction') await txHost.tx.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
            });
            commits += 1;
          }
        }),
      );
      rates[variant].push(commits / PRODUCE_SECONDS);
      await app.close();
    }
  }
  await listener.end();
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  return {
    inTransaction: mean(rates.inTransaction),
    withNotify: mean(rates.withNotify),
    withoutNotify: mean(rates.withoutNotify),
  };
}

export async function relayBenchmark(): Promise<Record<string, unknown>> {
  phase('relay: recreating and migrating the bench database');
  await recreateBenchDatabase();
  await migrateBenchDatabase();
  try {
    phase('relay: timing round trips to Postgres and Redis');
    const trips = await roundTrips();
    const raw = await rawBullmq();
    const { eventsPerSecond, app } = await outboxDrain(EVENTS, CONCURRENCY);
    const half = await latencyAt(app, Math.floor(eventsPerSecond / 2), 'half', LOAD_SECONDS);
    const light = await latencyAt(app, LIGHT_RATE, 'light', LOAD_SECONDS);
    await app.close();
    const notify = await notifyCost();
    phase('relay: done');
    const tracing = await tracingCost();
    const relays = await relaysBenchmarkFigures();
    const ratio = eventsPerSecond / raw.eventsPerSecond;
    const notifyCostShare = 1 - notify.withNotify / notify.withoutNotify;
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const latencyRows = (name: string, l: Latency) => [
      [`${name}: ${l.rate} events/s, delay p50`, ms(l.p50), 'goal <= 10 ms'],
      [`${name}: ${l.rate} events/s, delay p99`, ms(l.p99), `goal <= 50 ms (max ${ms(l.max)})`],
      [
        `${name}: relay stage p50 / p99`,
        `${ms(l.relay.p50)} / ${ms(l.relay.p99)}`,
        `consumer stage ${ms(l.consume.p50)} / ${ms(l.consume.p99)}; this process used ${(l.nodeCpu * 100).toFixed(0)}% of a core`,
      ],
    ];
    const rows = [
      [
        'one round trip, sequential: Postgres / Redis',
        `${trips.postgresMicros.toFixed(0)} / ${trips.redisMicros.toFixed(0)} us`,
        `of which this process's CPU ${trips.cpuPostgres.toFixed(0)} / ${trips.cpuRedis.toFixed(0)} us`,
      ],
      ['(a) raw BullMQ: bulk add + no-op worker', `${raw.eventsPerSecond.toFixed(0)} events/s`, 'baseline'],
      [
        '(b) outbox rows -> relay -> inbox + no-op handler',
        `${eventsPerSecond.toFixed(0)} events/s`,
        `${ratio.toFixed(2)} x (a), goal >= 0.50`,
      ],
      ...latencyRows('(c) at half of (b)', half),
      ...latencyRows('(c) at a light load', light),
      [
        '(d) producer commits/s, NOTIFY in the transaction',
        `${notify.inTransaction.toFixed(0)} commits/s`,
        `${((1 - notify.inTransaction / notify.withoutNotify) * 100).toFixed(1)}% fewer than without: why it is not done that way`,
      ],
      [
        '(d) producer commits/s, NOTIFY after commit, coalesced',
        `${notify.withNotify.toFixed(0)} commits/s`,
        `costs ${(notifyCostShare * 100).toFixed(1)}%, goal <= 5%`,
      ],
      ['(d) producer commits/s, no NOTIFY', `${notify.withoutNotify.toFixed(0)} commits/s`, 'baseline'],
      ['(e) drain in its own process, no trace exporter', `${tracing.untraced.toFixed(0)} events/s`, 'baseline'],
      [
        '(e) the same drain with the OTLP trace exporter',
        `${tracing.traced.toFixed(0)} events/s`,
        `tracing costs ${((1 - tracing.traced / tracing.untraced) * 100).toFixed(1)}%`,
      ],
      ...relayRows(relays),
    ];
    const width = Math.max(...rows.map((r) => r[0].length));
    const valueWidth = Math.max(...rows.map((r) => r[1].length));
    console.log(
      `\nrelay benchmark: ${EVENTS} events, worker concurrency ${CONCURRENCY}, ${new Date().toISOString()}\n`,
    );
    for (const [name, value, note] of rows)
      console.log(`${name.padEnd(width)}  ${value.padStart(valueWidth)}  ${note}`);
    return {
      events: EVENTS,
      concurrency: CONCURRENCY,
      trips,
      raw,
      ours: { eventsPerSecond },
      ratio,
      half,
      light,
      notify,
      notifyCostShare,
      tracing,
      relays,
    };
  } finally {
    await cleanRedis();
  }
}

/** (f) of relay: both relays on one Postgres with wal_level=logical, with this benchmark's sizes. */
const relaysBenchmarkFigures = () =>
  relaysSideBySide({ events: EVENTS, concurrency: CONCURRENCY, lightRate: LIGHT_RATE, loadSeconds: LOAD_SECONDS });

/** `npm run bench -- relays`: (f) alone. */
export async function relaysBenchmark(): Promise<Record<string, unknown>> {
  try {
    const relays = await relaysBenchmarkFigures();
    const table = relaysTable(relays);
    const measuredAt = new Date().toISOString();
    const widths = [
      Math.max(...table.map((r) => r.figure.length)),
      Math.max('polling'.length, ...table.map((r) => r.polling.length)),
      Math.max('logical'.length, ...table.map((r) => r.logical.length)),
    ];
    const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
    console.log(`\nboth relays: ${EVENTS} events, light load ${LIGHT_RATE} events/s, ${measuredAt}\n`);
    console.log(line(['', 'polling', 'logical']));
    for (const row of table) console.log(line([row.figure, row.polling, row.logical]));
    return { events: EVENTS, measuredAt, machine: { loadAverage: loadavg(), cpus: cpus().length }, relays, table };
  } finally {
    await cleanRedis();
  }
}
