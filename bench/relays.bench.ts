import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LogicalRelay } from '../src/infra/outbox/relaying/logical-relay';
import { OUTBOX_CHANNEL } from '../src/infra/outbox/relaying/outbox.relay';
import { LogicalPostgres } from '../test/support/logical-postgres';
import { cpus, loadavg } from 'node:os';
import { cleanRedis, migrateBenchDatabase, startApp, until } from './bench-env';
import { postgresCpuMs } from './machine-cpu';
import { phase, track } from './progress';
import {
  BenchModule,
  CONCURRENCY,
  EVENTS,
  type Latency,
  latencyAt,
  LIGHT_RATE,
  LOAD_SECONDS,
  NoopConsumer,
  RELAY_PATH_ENV,
  writeBacklog,
} from './relay-path';
import { printTable } from './report';

export const RELAYS = ['polling', 'logical'] as const;
type Relay = (typeof RELAYS)[number];

export interface RelayFigures {
  relay: Relay;
  /** A backlog written while the app runs, in transactions of 1,000 rows, until its last message is handled. */
  drainPerSecond: number;
  /** Postgres' CPU (every process of the server) per message of the drain, in microseconds. */
  drainPostgresMicros: number;
  light: Latency;
  /** Postgres' CPU per message at the light load, in microseconds: the producers' commits, the relay's reads, the inbox. */
  lightPostgresMicros: number;
  /** Postgres' CPU per second with the app idle (nothing written): what the relay costs when there is nothing to relay. */
  idlePostgresMsPerSecond: number;
}

/**
 * (f) Both relays side by side, on one Postgres server of the benchmark's own with
 * wal_level=logical (which both then pay for: the same WAL for everyone), each on a fresh database:
 * the drain of a backlog written while the app runs, the delay of each message at a light
 * open-loop load, and the CPU that Postgres (all its processes: the producers' backends, the
 * relay's, the WAL sender's decoding) spends a message, and a second when idle.
 */
export async function relaysSideBySide(): Promise<RelayFigures[]> {
  phase('(f) both relays: starting a Postgres with wal_level=logical');
  const server = await LogicalPostgres.start();
  const cpuMs = () => {
    const postmaster = server.server.postmasterPid();
    return postmaster ? postgresCpuMs(postmaster) : NaN;
  };
  const figures: RelayFigures[] = [];
  try {
    for (const relay of RELAYS) {
      const url = await server.createDatabase(`checkout_bench_${relay}`);
      await migrateBenchDatabase(url);
      const app = await startApp(
        {
          ...RELAY_PATH_ENV,
          DATABASE_URL: url,
          OUTBOX_RELAY: relay,
          OUTBOX_WORKER_CONCURRENCY: String(CONCURRENCY),
        },
        [BenchModule],
      );
      try {
        if (relay === 'logical') await until(() => app.get(LogicalRelay).reading, 60_000);
        phase(`(f) ${relay}: idle for 3 s`);
        const idleAt = cpuMs();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const idlePostgresMsPerSecond = (cpuMs() - idleAt) / 3;

        const drainAt = cpuMs();
        const drainPerSecond = await drainWhileRunning(app, url, EVENTS, relay);
        const drainPostgresMicros = ((cpuMs() - drainAt) * 1_000) / EVENTS;

        const lightAt = cpuMs();
        const light = await latencyAt(app, `light-${relay}`, `(f) ${relay}`);
        const lightPostgresMicros = ((cpuMs() - lightAt) * 1_000) / Math.max(1, Math.round(LIGHT_RATE * LOAD_SECONDS));
        figures.push({
          relay,
          drainPerSecond,
          drainPostgresMicros,
          light,
          lightPostgresMicros,
          idlePostgresMsPerSecond,
        });
      } finally {
        await app.close();
      }
    }
  } finally {
    await server.stop();
  }
  return figures;
}

/** Writes `events` rows, 1,000 a transaction, while the app runs; resolves with the rate until the last is handled. */
async function drainWhileRunning(
  app: INestApplicationContext,
  url: string,
  events: number,
  relay: Relay,
): Promise<number> {
  const consumer = app.get(NoopConsumer);
  const target = consumer.handled + events;
  const seed = new DataSource({ type: 'postgres', url });
  await seed.initialize();
  phase(`(f) ${relay}: writing ${events} outbox rows while the app runs, until each is handled`);
  const stopTracking = track(`(f) ${relay}: handled`, events, () => consumer.handled - (target - events));
  const started = Date.now();
  try {
    for (let start = 0; start < events; start += 1_000) {
      await writeBacklog(seed, start + 1, Math.min(events, start + 1_000));
      // As the app's own commits do (RelaySignal): without it the polling relay slept until its
      // next tick whenever it caught up with the writer, and a short drain timed mostly that.
      await seed.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
    }
    await until(() => consumer.handled >= target, 600_000);
  } finally {
    stopTracking();
    await seed.destroy();
  }
  return events / ((Date.now() - started) / 1_000);
}

/** One row of the side-by-side table: what is measured, and each relay's cell as printed. */
export interface RelaysTableRow {
  figure: string;
  polling: string;
  logical: string;
}

/**
 * Both relays side by side, one row per figure, as `npm run bench -- relays` prints it and saves
 * it (exercise 15 compares a learner's quoted cells with it).
 */
export function relaysTable(figures: RelayFigures[]): RelaysTableRow[] {
  const of = (relay: Relay) => figures.find((f) => f.relay === relay)!;
  const ms = (n: number) => n.toFixed(1);
  const row = (figure: string, cell: (f: RelayFigures) => string): RelaysTableRow => ({
    figure,
    polling: cell(of('polling')),
    logical: cell(of('logical')),
  });
  const rate = figures[0].light.rate;
  return [
    row('drain of a backlog written while it runs', (f) => `${f.drainPerSecond.toFixed(0)} events/s`),
    row(`a hop at ${rate} events/s, p50 / p99`, (f) => `${ms(f.light.p50)} / ${ms(f.light.p99)} ms`),
    row("the relay's stage of it, p50 / p99", (f) => `${ms(f.light.relay.p50)} / ${ms(f.light.relay.p99)} ms`),
    row(
      'Postgres CPU a message, drain / light',
      (f) => `${f.drainPostgresMicros.toFixed(0)} / ${f.lightPostgresMicros.toFixed(0)} us`,
    ),
    row('Postgres CPU a second, idle', (f) => `${f.idlePostgresMsPerSecond.toFixed(1)} ms`),
  ];
}

/** `npm run bench -- relays`: (f) alone. */
export async function relaysBenchmark(): Promise<Record<string, unknown>> {
  try {
    const relays = await relaysSideBySide();
    const table = relaysTable(relays);
    const measuredAt = new Date().toISOString();
    console.log(`\nboth relays: ${EVENTS} events, light load ${LIGHT_RATE} events/s, ${measuredAt}\n`);
    printTable([['', ...RELAYS], ...table.map((row) => [row.figure, row.polling, row.logical])], 'lll');
    return { events: EVENTS, measuredAt, machine: { loadAverage: loadavg(), cpus: cpus().length }, relays, table };
  } finally {
    await cleanRedis();
  }
}
