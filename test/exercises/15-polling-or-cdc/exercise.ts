import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Exercise 15: the learner answers two cases, each with the relay they choose and the figure of
 * their own `npm run bench -- relays` that decides it. No app code: the answer is data.
 */

export type Relay = 'polling' | 'logical';
export const RELAYS: readonly Relay[] = ['polling', 'logical'];

/** One row of the benchmark's side-by-side table, as it printed it: the figure's name, and each relay's cell. */
export interface Figure {
  /** The row's name, its first column: `Postgres CPU a message, drain / light`. */
  row: string;
  /** The polling relay's cell, copied as printed: `85 / 2240 us`. */
  polling: string;
  /** The logical relay's cell, copied as printed. */
  logical: string;
}

/** One case answered: the relay you choose (`polling` or `logical`) and the figure that decides it. */
export interface Answer {
  relay: string;
  figure: Figure;
}

/** The README's two cases: (a) a database near its CPU limit, (b) a team without replication rights. */
export interface Answers {
  a: Answer;
  b: Answer;
}

export interface PollingOrCdc {
  answers: Answers;
}

/** What one relay measured (bench/relays.bench.ts's RelayFigures, the fields the check reads). */
export interface RelayFigures {
  relay: Relay;
  drainPerSecond: number;
  drainPostgresMicros: number;
  light: { rate: number; p50: number; p99: number; relay: { p50: number; p99: number } };
  lightPostgresMicros: number;
  idlePostgresMsPerSecond: number;
}

/** What `npm run bench -- relays` writes under `relays` in its JSON: the printed table, and the figures behind it. */
export interface RelaysRun {
  measuredAt: string;
  machine: { loadAverage: number[]; cpus: number };
  relays: RelayFigures[];
  table: Array<{ figure: string; polling: string; logical: string }>;
}

/** Where `npm run bench` writes its figures: the newest `bench-*.json` with both relays in it is your last run. */
export const RESULTS_DIR = path.resolve(__dirname, '../../../bench/results');

/**
 * The file of the run the check reads: RELAYS_FIGURES when set (the check sets it when it ran the
 * benchmark itself), else the newest `bench/results/bench-*.json` that holds both relays' table.
 */
export function lastRunFile(): string | undefined {
  if (process.env.RELAYS_FIGURES) return process.env.RELAYS_FIGURES;
  if (!existsSync(RESULTS_DIR)) return undefined;
  return readdirSync(RESULTS_DIR)
    .filter((name) => /^bench-[0-9TZ-]+\.json$/.test(name))
    .sort()
    .reverse()
    .map((name) => path.join(RESULTS_DIR, name))
    .find((file) => readRun(file) !== undefined);
}

/** The relays' part of a benchmark's JSON, if it has one with its table. */
export function readRun(file: string): RelaysRun | undefined {
  try {
    const run = (JSON.parse(readFileSync(file, 'utf8')) as { relays?: Partial<RelaysRun> }).relays;
    return run?.table && run.relays ? (run as RelaysRun) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A row of the last run's table, read when the check reads it. The reference answer uses it, because
 * its figures cannot be known before the run; yours are copied from the table your run printed.
 */
export function fromTheLastRun(row: string): Figure {
  const cell = (relay: Relay) => {
    const file = lastRunFile();
    const found = file && readRun(file)?.table.find((printed) => printed.figure === row);
    return found ? found[relay] : '';
  };
  return {
    row,
    get polling() {
      return cell('polling');
    },
    get logical() {
      return cell('logical');
    },
  };
}
