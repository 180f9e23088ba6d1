import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Exercise 14: the learner answers the lesson's three cases, each with the mode they recommend and
 * the figure of their own `npm run compare` that decides it. No app code: the answer is data.
 */

export type Mode = 'choreography' | 'orchestration';
export const MODES: readonly Mode[] = ['choreography', 'orchestration'];

/** One row of compare's table, as it printed it: the figure's name, and each mode's cell. */
export interface Figure {
  /** The row's name, its first column: `messages per checkout`, `content.grant-access timeout-after`. */
  row: string;
  /** The choreography's cell, copied as printed: `4.3`, `INTERVENTION (3512 ms)`. */
  choreography: string;
  /** The orchestration's cell, copied as printed. */
  orchestration: string;
}

/** One case answered: the mode you recommend (`choreography` or `orchestration`) and the figure that decides it. */
export interface Answer {
  mode: string;
  figure: Figure;
}

/** The README's three cases: (a) the checkout, (b) three reactions to a video, (c) a subscription. */
export interface Answers {
  a: Answer;
  b: Answer;
  c: Answer;
}

export interface ChoreographyOrOrchestration {
  answers: Answers;
}

/** What `npm run compare` writes (bench/compare.ts): its printed table, and the figures behind it. */
export interface Comparison {
  measuredAt: string;
  machine: { loadAverage: number[]; cpus: number };
  /** The printed table, row by row (runs before exercise 14 was checkable lack it). */
  table?: Array<{ figure: string; choreography: string; orchestration: string }>;
  reports: Record<
    Mode,
    {
      business: { messagesPerCheckout: number; transactionsPerCheckout: number };
      scenarios: Record<string, { status: string; durationMs: number; fault?: string }>;
    }
  >;
}

/** Where `npm run compare` writes its figures by default: the newest `compare-*.json` here is your last run. */
export const RESULTS_DIR = path.resolve(__dirname, '../../../bench/results');

/**
 * The file of the run the check reads: COMPARE_FIGURES when set (the check sets it when it ran
 * compare itself), else the newest `bench/results/compare-*.json`, your last `npm run compare`.
 */
export function lastRunFile(): string | undefined {
  if (process.env.COMPARE_FIGURES) return process.env.COMPARE_FIGURES;
  if (!existsSync(RESULTS_DIR)) return undefined;
  const newest = readdirSync(RESULTS_DIR)
    .filter((name) => /^compare-[0-9TZ-]+\.json$/.test(name))
    .sort()
    .pop();
  return newest && path.join(RESULTS_DIR, newest);
}

export function readComparison(file: string): Comparison {
  return JSON.parse(readFileSync(file, 'utf8')) as Comparison;
}

/**
 * A row of the last run's table, read when the check reads it. The reference answer uses it, because
 * its figures cannot be known before the run; yours are copied from the table your run printed.
 */
export function fromTheLastRun(row: string): Figure {
  const cell = (mode: Mode) => {
    const file = lastRunFile();
    const found = file && readComparison(file).table?.find((printed) => printed.figure === row);
    return found ? found[mode] : '';
  };
  return {
    row,
    get choreography() {
      return cell('choreography');
    },
    get orchestration() {
      return cell('orchestration');
    },
  };
}
