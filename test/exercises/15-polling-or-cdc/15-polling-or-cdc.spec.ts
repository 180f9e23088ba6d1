import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_REDIS_URL } from '../../support/test-env';
import { implementation, invariant, narrate, narrating } from '../support/track';
import {
  type Answer,
  lastRunFile,
  type PollingOrCdc,
  type Relay,
  RELAYS,
  type RelayFigures,
  readRun,
  type RelaysRun,
} from './exercise';

const { answers } = implementation<PollingOrCdc>(__dirname);
const root = path.resolve(__dirname, '../../..');

/**
 * What a row of the relays' table says. `cpu`: what Postgres spends a message (the producer's
 * database pays it). `hop`: how long a message takes from its commit to its consumer at light load.
 * `idle`: what Postgres spends a second when nothing is written. `drain`: how fast a backlog goes.
 */
type Kind = 'cpu' | 'hop' | 'idle' | 'drain';

function kindOf(row: string): Kind | undefined {
  if (row === 'Postgres CPU a message, drain / light') return 'cpu';
  if (/^a hop at \d+ events\/s, p50 \/ p99$/.test(row) || row === "the relay's stage of it, p50 / p99") return 'hop';
  if (row === 'Postgres CPU a second, idle') return 'idle';
  if (row === 'drain of a backlog written while it runs') return 'drain';
  return undefined;
}

/** Why a row does not decide the case, in the learner's words. */
const WHY_NOT: Record<Kind, string> = {
  cpu: 'what Postgres spends a message: what stands between this team and the log is not a cost but what the log needs; the question left is what polling costs them in a hop',
  hop: 'how long a hop takes at light load: a few ms either way; a database near its CPU limit asks what each message costs it',
  idle: "what Postgres spends a second while nothing is written is the log's advantage, and a database writing all day never sees it",
  drain:
    'how fast a backlog drains: the two relays drain within a fraction of each other, and no case here waits on a backlog',
};

/** The cases: what each calls for, the kind of figure that decides it, and the question to ask when it is answered wrong. */
const CASES: Record<keyof typeof answers, { story: string; relay: Relay; decidedBy: Kind; question: string }> = {
  a: {
    story: 'a producer database already near its CPU limit, writing all day',
    relay: 'polling',
    decidedBy: 'cpu',
    question:
      'in your run, which relay cost the producer’s database less CPU for each message, and is "no read load" the same as no cost?',
  },
  b: {
    story: 'a team without replication rights, whose on-call cannot watch one more dependency',
    relay: 'polling',
    decidedBy: 'hop',
    question:
      'what does the logical relay need that they do not have (a right, a setting, a slot to watch), and what would it buy them at light load?',
  },
};

/** A full `npm run bench -- relays` on the development machine, which `npm test` judges the answers against. */
const RECORDED_RUN = path.join(__dirname, 'recorded-run.json');

const cell = (text: unknown) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();

/** Fails with the case's broken promise as its first line, which `npm run exercise` prints. */
function broken(statement: string): never {
  throw new Error(statement);
}

/** Whether `kind`'s figures, in this run, speak for `relay`. */
function decides(kind: Kind, relay: Relay, run: RelaysRun): boolean {
  const of = (r: Relay) => run.relays.find((figures) => figures.relay === r) as RelayFigures;
  const [mine, other] = relay === 'polling' ? [of('polling'), of('logical')] : [of('logical'), of('polling')];
  switch (kind) {
    case 'cpu':
      return mine.drainPostgresMicros < other.drainPostgresMicros;
    case 'idle':
      return mine.idlePostgresMsPerSecond < other.idlePostgresMsPerSecond;
    case 'hop':
      // As short, or nearly: the other relay would not buy a hop that matters (the machine's load
      // makes a single run's milliseconds wander).
      return mine.light.p50 <= 2 * other.light.p50 + 2;
    case 'drain':
      return false;
  }
}

/**
 * Exercise 15 (issue 27): polling or CDC? No code: the learner's answers name a relay per case
 * and the figure of their own `npm run bench -- relays` that decides it. The first check is of
 * the reasoning (the relay, and the kind of figure given for it); the second of the figure,
 * against the last run's table: quoted as printed, and speaking for that relay there. Under
 * `npm run exercise` the last run is the learner's (bench/results/); under `npm test` the check
 * runs a short benchmark of its own to see that it reads what the benchmark prints, and judges the
 * answers against a recorded full run, `recorded-run.json` (RELAYS_FIGURES names a run to read instead).
 */
describe('Exercise 15: polling or CDC?', () => {
  let run: Promise<{ file: string; relays: RelaysRun }> | undefined;
  let work: string | undefined;
  let setFigures = false;

  afterAll(() => {
    if (setFigures) delete process.env.RELAYS_FIGURES;
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** A short `npm run bench -- relays` of the check's own (3,000 events, 3 s of light load), on its own Postgres. */
  async function shortBenchmark(): Promise<string> {
    work = mkdtempSync(path.join(tmpdir(), 'exercise-15-'));
    const output = path.join(work, 'relays.json');
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'bench/run.ts', 'relays'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        BENCH_REDIS_URL: TEST_REDIS_URL,
        BENCH_EVENTS: '3000',
        BENCH_LOAD_SECONDS: '3',
        BENCH_OUTPUT: output,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0)
      throw new Error(`the check's own npm run bench -- relays ended with ${code}:\n${said.slice(-2_000)}`);
    return output;
  }

  /** The run whose figures the answers must quote, read once. */
  function theRun(): Promise<{ file: string; relays: RelaysRun }> {
    run ??= (async () => {
      if (!process.env.RELAYS_FIGURES && !narrating()) {
        // Under `npm test`: a short run of the benchmark proves that the check reads what the
        // benchmark prints (every row of the recorded run is in its table); the answers are then
        // judged against the recorded run, a full one on the development machine, since three
        // seconds of a short run can tie what a full run tells apart (one did, 37 µs each).
        const short = readRun(await shortBenchmark());
        const recorded = readRun(RECORDED_RUN);
        const missing = recorded?.table.filter(
          (line) => !short?.table.some((l) => cell(l.figure) === cell(line.figure)),
        );
        invariant("the benchmark's table, as the check reads it, has every row of the recorded run", missing, []);
        process.env.RELAYS_FIGURES = RECORDED_RUN;
        setFigures = true;
      }
      const file = lastRunFile();
      const relays = file && readRun(file);
      if (!file || !relays) {
        broken(
          'you have not run npm run bench -- relays here yet (or it ran before the benchmark saved its table): run it (a minute or two), then copy each figure from the table it prints',
        );
      }
      narrate(
        `your last npm run bench -- relays: ${path.relative(root, file)}, run at ${relays.measuredAt.slice(0, 16).replace('T', ' ')} UTC ` +
          `(load average ${relays.machine.loadAverage[0].toFixed(1)} on ${relays.machine.cpus} cores)`,
      );
      return { file, relays };
    })();
    return run;
  }

  describe.each(Object.keys(CASES) as Array<keyof typeof answers>)('case (%s)', (key) => {
    const theCase = CASES[key];
    const answer: Answer = answers[key];

    it(`when case (${key}) is answered, then its relay is the one the case calls for, for a reason its figure gives`, () => {
      const relay = cell(answer?.relay);
      const row = cell(answer?.figure?.row);
      if (!RELAYS.includes(relay as Relay)) {
        broken(`(${key}) has no relay yet: write 'polling' or 'logical' (it is "${relay}")`);
      }
      if (!row) broken(`(${key}) names no figure yet: copy the name of one row of your benchmark's table`);
      if (relay !== theCase.relay) {
        broken(`(${key}) ${theCase.story}: not ${relay}. Ask yourself: ${theCase.question}`);
      }
      const kind = kindOf(row);
      if (!kind) {
        broken(
          `(${key}) npm run bench -- relays prints no row named "${row}": copy the first column of one of its rows`,
        );
      }
      if (kind !== theCase.decidedBy) {
        broken(
          kind === 'idle'
            ? `(${key}) ${relay} is right, but "${row}" speaks for logical: ${WHY_NOT[kind]}`
            : `(${key}) ${relay} is right, but "${row}" does not decide it: ${WHY_NOT[kind]}`,
        );
      }
      narrate(`(${key}) ${relay}, for "${row}"`);
    });

    it(`when case (${key})'s figure is read, then it is the one your last benchmark printed, and it speaks for your relay in that run`, async () => {
      const { file, relays } = await theRun();
      const row = cell(answer?.figure?.row);
      if (!row) broken(`(${key}) names no figure yet: copy one row of your benchmark's table`);
      const printed = relays.table.find((line) => cell(line.figure) === row);
      if (!printed) broken(`(${key}) your last benchmark (${path.basename(file)}) printed no row "${row}"`);
      const quoted = { polling: cell(answer.figure.polling), logical: cell(answer.figure.logical) };
      invariant(`(${key}) "${row}" is quoted as your last benchmark printed it (${path.basename(file)})`, quoted, {
        polling: cell(printed.polling),
        logical: cell(printed.logical),
      });
      if (!decides(kindOf(row)!, answer.relay as Relay, relays)) {
        broken(
          `(${key}) in your run, "${row}" does not speak for ${answer.relay} (polling ${quoted.polling}, ` +
            `logical ${quoted.logical}): run the benchmark again on a quieter machine, or choose a row that does`,
        );
      }
      narrate(`(${key}) ${row}: polling ${quoted.polling}, logical ${quoted.logical}`);
    }, 300_000);
  });
});
