import { existsSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ADMIN_TOKEN } from '../../support/test-env';

/**
 * The exercise track's side of a spec: which answer it runs against (the learner's starter, the
 * reference solution, or a known wrong answer), and what it tells the learner while it runs.
 */

/**
 * The answer an exercise runs against: `starter`, `solution` (the default: what `npm test` runs),
 * `solution-<style>` or `wrong-<what>`. EXERCISE_TARGET names it; EXERCISE_TARGETS (JSON, by
 * folder name) names one per exercise, for a run of several exercises against different answers.
 */
export function target(dir?: string): string {
  const byFolder = JSON.parse(process.env.EXERCISE_TARGETS || '{}') as Record<string, string>;
  return (dir && byFolder[path.basename(dir)]) || process.env.EXERCISE_TARGET || 'solution';
}

/** Whether `npm run exercise` is running this spec (it narrates); `npm test` stays silent. */
export const narrating = (): boolean => process.env.EXERCISE_NARRATE === '1';

/**
 * The file of the answer under test in an exercise's folder: `${dir}/${target}.ts`, or `.js` where
 * this file runs compiled (in a child app, test/support/compiled.ts).
 */
export function implementationPath(dir: string): string {
  const file = path.join(dir, `${target(dir)}${path.extname(__filename)}`);
  if (!existsSync(file)) {
    throw new Error(
      `No ${path.basename(file)} in ${path.relative(process.cwd(), dir)} (EXERCISE_TARGET=${target(dir)})`,
    );
  }
  return file;
}

/**
 * The answer under test, loaded once by the spec: `const wallet = implementation<WalletAnswer>(__dirname)`.
 * Its exports are the exercise's small interface (exercise.ts), the same for starter and solution.
 */
export function implementation<T>(dir: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- chosen at run time, by EXERCISE_TARGET
  return require(implementationPath(dir)) as T;
}

/**
 * Asserts one of the exercise's invariants, and when it is broken says so in the learner's words
 * (the first line of the failure is `statement`, which `npm run exercise` prints last):
 * `invariant('order 1 was committed: shipping hears of it exactly once', parcels, 1)`.
 */
export function invariant<T>(statement: string, actual: T, expected: T): void {
  if (isDeepStrictEqual(actual, expected)) return;
  throw new Error(`${statement}\nexpected: ${JSON.stringify(expected)}\ngot:      ${JSON.stringify(actual)}`);
}

/** One line of the exercise's story, printed under `npm run exercise`: what was injected, what happened. */
export function narrate(what: string): void {
  if (narrating()) process.stdout.write(`  │ ${what}\n`);
}

interface TimelineEntry {
  at: string;
  kind: string;
  type: string;
  consumer?: string | null;
  attempt?: number | null;
  detail?: unknown;
}

/**
 * The checkout's timeline (GET /checkouts/:id/timeline), narrated when the learner asks for it
 * (`npm run exercise -- NN --timeline`): every message and delivery in time order. It is long, and
 * it shows what some exercises ask the learner to find (09's keys), so it is not told by default.
 * `app` is anything with the app's base URL (a TestApp, an ExerciseProcess).
 */
export async function narrateTimeline(app: { url: string }, checkoutId: string): Promise<void> {
  if (!narrating() || process.env.EXERCISE_TIMELINE !== '1') return;
  const response = await fetch(`${app.url}/checkouts/${checkoutId}/timeline`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (response.status !== 200) return narrate(`(no timeline for checkout ${checkoutId}: ${response.status})`);
  const entries = (await response.json()) as TimelineEntry[];
  narrate(`timeline of checkout ${checkoutId}:`);
  const start = entries.length > 0 ? Date.parse(entries[0].at) : 0;
  for (const entry of entries) {
    const at = `+${String(Date.parse(entry.at) - start).padStart(5)} ms`;
    const who = entry.consumer ? ` → ${entry.consumer}${entry.attempt ? ` (attempt ${entry.attempt})` : ''}` : '';
    const detail = entry.detail
      ? ` ${typeof entry.detail === 'string' ? entry.detail : JSON.stringify(entry.detail)}`
      : '';
    narrate(`  ${at}  ${entry.kind.padEnd(8)} ${entry.type}${who}${detail}`);
  }
}
