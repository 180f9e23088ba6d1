import 'reflect-metadata';
import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Client, escapeIdentifier } from 'pg';
import IORedis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { dataSourceOptions } from '../src/infra/database/data-source.options';
import { runMigrations } from '../src/infra/database/run-migrations';

/** Where benchmarks run: a database of their own, recreated each run, and a Redis key prefix of their own. */
export const BENCH_DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/checkout_bench';
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const benchPrefix = `bench-${randomBytes(3).toString('hex')}`;

/** `url` with its database name replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Drops and creates the database `url` names, which must have "bench" in its name. */
export async function recreateDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/bench/.test(name))
    throw new Error(`Refusing to use database "${name}" for benchmarks: its name must contain "bench"`);
  const client = new Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)} WITH (FORCE)`);
  await client.query(`CREATE DATABASE ${escapeIdentifier(name)}`);
  await client.end();
}

export const recreateBenchDatabase = (): Promise<void> => recreateDatabase(BENCH_DATABASE_URL);

/** Applies every registered migration (importing the modules registers them). */
export async function migrateBenchDatabase(url = BENCH_DATABASE_URL): Promise<void> {
  void AppModule;
  const dataSource = new DataSource({
    ...dataSourceOptions({ url, poolSize: 2, migrationsRun: false, retryMs: 1_000 }),
    logger: undefined,
    logging: false,
  });
  await dataSource.initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();
}

const RELAY_AT_START = process.env.OUTBOX_RELAY ?? 'polling';

/** The app, without HTTP, with the given roles and settings and extra modules. */
export async function startApp(
  env: Record<string, string>,
  imports: Array<Type | DynamicModule> = [],
): Promise<INestApplicationContext> {
  Object.assign(process.env, {
    DATABASE_URL: BENCH_DATABASE_URL,
    REDIS_URL: BENCH_REDIS_URL,
    QUEUE_PREFIX: benchPrefix,
    LOG_LEVEL: 'warn',
    DATABASE_POOL_SIZE: '20',
    // As the bench was started with: an earlier app of this process (relays' (f)) may have set another.
    OUTBOX_RELAY: RELAY_AT_START,
    ...env,
  });
  const { Module } = await import('@nestjs/common');
  @Module({ imports: [AppModule, ...imports] })
  class BenchAppModule {}
  const app = await NestFactory.createApplicationContext(BenchAppModule, { logger: ['error'] });
  await app.init();
  return app;
}

export async function cleanRedis(): Promise<void> {
  const redis = new IORedis(BENCH_REDIS_URL);
  let cursor = '0';
  do {
    // The app's queues start with their hash tag, `{<prefix>:<queue>}`; the raw bench's with the prefix.
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${benchPrefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** How some durations spread: their median, p95, p99 and longest (NaN for none). */
export interface Distribution {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(sorted, p));
  return { p50, p95, p99, max: sorted.at(-1) ?? NaN };
}

export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`benchmark condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * An open-loop load: `send(0)` to `send(total - 1)`, spread evenly at `rate` a second from now,
 * each when its time comes whether or not the earlier ones are done (the calls a system under load
 * gets). Resolves once the last is sent, or as soon as `stop()` says so.
 */
export function openLoop(
  rate: number,
  total: number,
  send: (index: number) => void,
  stop: () => boolean = () => false,
): Promise<void> {
  const started = performance.now();
  let sent = 0;
  return new Promise((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1_000) * rate) + 1);
      for (; sent < due; sent += 1) send(sent);
      if (sent >= total || stop()) {
        clearInterval(tick);
        resolve();
      }
    }, 2);
  });
}

/**
 * How long a fixed piece of work like the app's takes on this machine now (JSON of 20,000
 * message-sized objects, best of three, one core): the same code on the development machine runs
 * up to half slower in one hour than in the next, so a run's figures compare with another's only
 * at a like speed.
 */
export function speedProbeMs(): number {
  const message = {
    id: '8b0c1c1e-4a55-4f0e-9d3a-2f1a6c5e7b90',
    type: 'billing.payment-authorized.v1',
    aggregateId: 'c1b6a7e2-0d4f-4c8e-9a51-3e2f1d0c9b8a',
    payload: { checkoutId: 'c1b6a7e2', amountCents: 1_990, currency: 'EUR', authorizationId: 'auth_123456' },
    headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    createdAt: '2026-12-01T20:00:00.000Z',
  };
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    for (let i = 0; i < 20_000; i += 1) JSON.parse(JSON.stringify({ ...message, attempt: i }));
    best = Math.min(best, performance.now() - started);
  }
  return Math.round(best * 10) / 10;
}

/** Figures mean little without the machine they were measured on, and how busy it was. */
export function machine() {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    /** 1, 5 and 15 minutes, when the figures were taken: others' work on a shared machine shows here. */
    loadAverage: os.loadavg().map((load) => Math.round(load * 100) / 100),
    speedProbeMs: speedProbeMs(),
  };
}

/**
 * Transactions committed in the database of `url` so far, as pg_stat_database counts them (this
 * reading is one). Postgres publishes a backend's counts within about a second of its last
 * transaction: wait that long after the work before reading.
 */
export async function transactionsCommitted(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

export const statsSettle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1_200));
