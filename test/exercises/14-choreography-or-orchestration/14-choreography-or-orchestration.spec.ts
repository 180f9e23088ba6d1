import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropDatabase } from '../../support/test-database';
import { runDatabasePrefix, TEST_DATABASE_URL, TEST_REDIS_URL, withDatabaseName } from '../../support/test-env';
import { implementation, invariant, narrate, narrating } from '../support/track';
import {
  type Answer,
  type ChoreographyOrOrchestration,
  type Comparison,
  lastRunFile,
  type Mode,
  MODES,
  readComparison,
} from './exercise';

const { answers } = implementation<ChoreographyOrOrchestration>(__dirname);
const root = path.resolve(__dirname, '../../..');

/**
 * What a row of compare's table says about the two modes. `silence`: a step took its message and
 * said nothing (the saga's deadline resends it; the choreography waits for a person). `cost`: what
 * a checkout costs (a choreographed step is one message, an orchestrated one a command and its
 * answer). `retry`: a failure tried again (the queue retries sooner than a saga resends). `mood`:
 * how long a checkout took that both modes end the same way (a business outcome, a step that
 * fails before the pivot and is undone). `same`: equal by design.
 */
type Kind = 'silence' | 'cost' | 'retry' | 'mood' | 'same';

/** The failures that are tried again: a step after the pivot, which is never undone, and a compensation. */
const RETRIED = [
  'content.activate-access fail',
  'notifications.send-welcome-email fail',
  'void fails once',
  'revoke fails once',
];
/** The business scenarios, and the failures before the pivot, which both modes end the same way (undone). */
const BUSINESS = ['happy path', 'not licensed', 'card declined', 'capture declined', 'blocked buyer', 'unknown buyer'];

function kindOf(row: string): Kind | undefined {
  if (/ timeout-(before|after)$/.test(row)) return 'silence';
  if (row === 'messages per checkout' || row === 'Postgres transactions per checkout') return 'cost';
  if (RETRIED.includes(row)) return 'retry';
  if (/^duration p\d\d/.test(row) || BUSINESS.includes(row) || / fail$/.test(row)) return 'mood';
  if (/^(business outcomes|fault scenarios|invariants)/.test(row)) return 'same';
  return undefined;
}

/** The mode a kind of figure speaks for, if any. */
const FAVOURS: Record<Kind, Mode | undefined> = {
  silence: 'orchestration',
  cost: 'choreography',
  retry: 'choreography',
  mood: undefined,
  same: undefined,
};

/** Why a row decides nothing, or speaks for the other mode, in the learner's words. */
const WHY_NOT: Record<Kind, string> = {
  silence: 'a silent step is what a saga handles by itself and a choreography hands to a person',
  cost: "what a checkout costs: a choreographed step is one message, an orchestrated one a command and its answer; that is orchestration's price, not a reason to choose it",
  retry: 'a failure retried: the queue retries sooner than a saga resends',
  mood: "both modes end these checkouts the same way, and their milliseconds are this machine's mood",
  same: 'it is the same in both modes',
};

/** The three cases: what each calls for, and the kinds of figure that decide it. */
const CASES: Record<keyof typeof answers, { story: string; mode: Mode; decidedBy: Kind[]; question: string }> = {
  a: {
    story: 'a checkout of 5 steps, several compensations, rules that change every sprint',
    mode: 'orchestration',
    decidedBy: ['silence'],
    question: 'with five steps, what happens to a checkout when one of them goes silent?',
  },
  b: {
    story: 'three independent, stable reactions to a published video',
    mode: 'choreography',
    decidedBy: ['cost', 'retry'],
    question: 'what would a saga add to reactions that wait for nothing and undo nothing, and what would it cost?',
  },
  c: {
    story: 'a subscription that undoes the previous steps in order when one fails',
    mode: 'orchestration',
    decidedBy: ['silence'],
    question: 'who notices a step that never answers, and who then undoes the others, in which order?',
  },
};

/** The fault scenarios the check's own short compare runs: the rows the reference and the wrong answers quote. */
const SHORT_FAULTS = ['content.grant-access timeout-after', 'billing.authorize-payment timeout-after'];

const norm = (text: unknown) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();

/** Fails with the case's broken promise as its first line, which `npm run exercise` prints. */
function broken(statement: string): never {
  throw new Error(statement);
}

/**
 * Exercise 14 (lesson 002, exercise 4): choreography or orchestration? No code: the learner's
 * answers name a mode per case and the figure of their own `npm run compare` that decides it.
 * The first check is of the reasoning (the mode, and the kind of figure given for it); the second
 * of the figure, against the last run's table: quoted as printed, and deciding the case there.
 * Under `npm run exercise` the last run is the learner's (bench/results/); under `npm test` the
 * check runs a short compare of its own (COMPARE_FIGURES names a run to read instead).
 */
describe('Exercise 14: choreography or orchestration?', () => {
  let run: Promise<{ file: string; comparison: Comparison }> | undefined;
  let work: string | undefined;
  let database: string | undefined;
  let setFigures = false;

  afterAll(async () => {
    if (setFigures) delete process.env.COMPARE_FIGURES;
    if (database) await dropDatabase(database);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /**
   * A compare of the check's own, short (one checkout per business scenario, two faults), on a
   * database of its own. `npm test` runs this spec once for each of 14's answers, and names in
   * EXERCISE_14_COMPARE where to keep the run: the first answer to be checked makes it, the others
   * read the same figures (each still checked against a compare of this code, in this `npm test`).
   */
  async function shortCompare(): Promise<string> {
    const shared = process.env.EXERCISE_14_COMPARE;
    if (shared && existsSync(shared)) return shared;
    work = mkdtempSync(path.join(tmpdir(), 'exercise-14-'));
    database = `${runDatabasePrefix()}bench_ex14_${randomBytes(3).toString('hex')}`;
    const output = path.join(work, 'compare.json');
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'bench/compare.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        BENCH_DATABASE_URL: withDatabaseName(TEST_DATABASE_URL, database),
        BENCH_REDIS_URL: TEST_REDIS_URL,
        COMPARE_REPEAT: '1',
        COMPARE_IN_FLIGHT: '6',
        COMPARE_FAULTS: SHORT_FAULTS.join(','),
        COMPARE_OUTPUT: output,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the check's own npm run compare ended with ${code}:\n${said.slice(-2_000)}`);
    if (!shared) return output;
    copyFileSync(output, shared);
    return shared;
  }

  /** The run whose figures the answers must quote, read once. */
  function theRun(): Promise<{ file: string; comparison: Comparison }> {
    run ??= (async () => {
      if (!process.env.COMPARE_FIGURES && !narrating()) {
        process.env.COMPARE_FIGURES = await shortCompare();
        setFigures = true;
      }
      const file = lastRunFile();
      if (!file) {
        broken(
          'you have not run npm run compare here yet: run it (a few minutes), then copy each figure from the table it prints',
        );
      }
      const comparison = readComparison(file);
      if (!comparison.table) {
        broken(`${path.relative(root, file)} was written before compare saved its table: run npm run compare again`);
      }
      narrate(
        `your last npm run compare: ${path.relative(root, file)}, run at ${comparison.measuredAt.slice(0, 16).replace('T', ' ')} UTC ` +
          `(load average ${comparison.machine.loadAverage[0]} on ${comparison.machine.cpus} cores)`,
      );
      return { file, comparison };
    })();
    return run;
  }

  describe.each(Object.keys(CASES) as Array<keyof typeof answers>)('case (%s)', (key) => {
    const theCase = CASES[key];
    const answer: Answer = answers[key];

    it(`when case (${key}) is answered, then its mode is the one the case calls for, for a reason its figure gives`, () => {
      const mode = norm(answer?.mode);
      const row = norm(answer?.figure?.row);
      if (!MODES.includes(mode as Mode)) {
        broken(`(${key}) has no mode yet: write 'choreography' or 'orchestration' (it is "${mode}")`);
      }
      if (!row) broken(`(${key}) names no figure yet: copy the name of one row of your compare's table`);
      if (mode !== theCase.mode) {
        broken(`(${key}) ${theCase.story}: not ${mode}. Ask yourself: ${theCase.question}`);
      }
      const kind = kindOf(row);
      if (!kind) broken(`(${key}) compare prints no row named "${row}": copy the first column of one of its rows`);
      if (!theCase.decidedBy.includes(kind)) {
        const favours = FAVOURS[kind];
        broken(
          favours && favours !== mode
            ? `(${key}) ${mode} is right, but "${row}" speaks for ${favours}: ${WHY_NOT[kind]}`
            : `(${key}) ${mode} is right, but "${row}" does not decide it: ${WHY_NOT[kind]}`,
        );
      }
      narrate(`(${key}) ${mode}, for "${row}"`);
    });

    it(`when case (${key})'s figure is read, then it is the one your last compare printed, and it decides the case in that run`, async () => {
      const { file, comparison } = await theRun();
      const row = norm(answer?.figure?.row);
      if (!row) broken(`(${key}) names no figure yet: copy one row of your compare's table`);
      const printed = comparison.table!.find((line) => norm(line.figure) === row);
      if (!printed) {
        broken(`(${key}) your last compare (${path.basename(file)}) printed no row "${row}"`);
      }
      const quoted = {
        choreography: norm(answer.figure.choreography),
        orchestration: norm(answer.figure.orchestration),
      };
      invariant(`(${key}) "${row}" is quoted as your last compare printed it (${path.basename(file)})`, quoted, {
        choreography: norm(printed.choreography),
        orchestration: norm(printed.orchestration),
      });
      const { choreography, orchestration } = comparison.reports;
      const kind = kindOf(row)!;
      const decides =
        kind === 'silence'
          ? orchestration.scenarios[row]?.status === 'COMPLETED' && choreography.scenarios[row]?.status !== 'COMPLETED'
          : kind === 'cost'
            ? row === 'messages per checkout'
              ? choreography.business.messagesPerCheckout < orchestration.business.messagesPerCheckout
              : choreography.business.transactionsPerCheckout < orchestration.business.transactionsPerCheckout
            : kind === 'retry'
              ? choreography.scenarios[row]?.status === orchestration.scenarios[row]?.status &&
                choreography.scenarios[row].durationMs < orchestration.scenarios[row].durationMs
              : false;
      if (!decides) {
        broken(
          `(${key}) in your run, "${row}" does not speak for ${answer.mode} (choreography ${quoted.choreography}, ` +
            `orchestration ${quoted.orchestration}): choose a row that does`,
        );
      }
      narrate(`(${key}) ${row}: choreography ${quoted.choreography}, orchestration ${quoted.orchestration}`);
    }, 300_000);
  });
});
