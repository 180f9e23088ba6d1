import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { eventually } from '../support/eventually';

const root = path.resolve(__dirname, '../..');
const script = path.join(root, 'scripts', 'exercise.js');
const starter = path.join(__dirname, '04-per-consumer-dedup', 'starter.ts');

/**
 * `npm run exercise`'s own commands, as a learner types them: hints one at a time, the list of
 * what is green, and a watch that runs the exercise again when its starter is saved. The runs use
 * exercise 04 (the quickest to boot) and a progress file of their own, never the learner's.
 */
describe('npm run exercise: hints, progress and watch', () => {
  let work: string;
  let progress: string;
  /** The environment of a run: its own progress file, and its own Jest run id (its own template database). */
  const env = () => {
    const { TEST_RUN_ID: _outer, ...rest } = process.env;
    return { ...rest, EXERCISE_PROGRESS: progress, FORCE_COLOR: '0' };
  };
  const exercise = (...args: string[]) => {
    const run = spawnSync(process.execPath, [script, ...args], { cwd: root, env: env(), encoding: 'utf8' });
    return { status: run.status, out: stripVTControlCharacters(run.stdout + run.stderr) };
  };

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'exercise-command-'));
    progress = path.join(work, 'progress.json');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('when a learner asks for hint 2, then they read hint 2 alone, and a hint that does not exist is refused', () => {
    const hints = readFileSync(path.join(__dirname, '04-per-consumer-dedup', 'hints.md'), 'utf8').split(/^## /m);
    const second = hints[2].split('\n').slice(1).join(' ').trim().split(/\s+/).slice(0, 6).join(' ');
    const third = hints[3].split('\n').slice(1).join(' ').trim().split(/\s+/).slice(0, 6).join(' ');

    const asked = exercise('04', '--hint', '2');
    expect(asked.status).toBe(0);
    expect(asked.out.replace(/\s+/g, ' ')).toContain(second);
    expect(asked.out.replace(/\s+/g, ' ')).not.toContain(third);
    expect(asked.out).toContain('--hint 3');

    expect(exercise('04', '--hint', '9')).toEqual({ status: 2, out: expect.stringContaining('hints 1 to 3') });
    const readme = readFileSync(path.join(__dirname, '04-per-consumer-dedup', 'README.md'), 'utf8');
    expect(readme.replace(/\s+/g, ' ')).not.toContain(second);
  });

  it('when the list is asked for, then each exercise says green, red or not tried from its last run', () => {
    writeFileSync(
      progress,
      JSON.stringify({
        '01-dual-write': { starter: { verdict: 'green', at: '2026-01-01T10:00:00.000Z' } },
        '02-the-relay-dies': { starter: { verdict: 'red', failed: 1, total: 2, at: '2026-01-01T10:05:00.000Z' } },
      }),
    );
    const { status, out } = exercise('list');
    expect(status).toBe(0);
    expect(out).toMatch(/01-dual-write +green/);
    expect(out).toMatch(/02-the-relay-dies +red \(1 of 2 broken\)/);
    expect(out).toMatch(/03-the-wallet +not tried/);
    expect(out).toContain('Next: npm run exercise -- 02');
  });

  it("when a red run is told, then Jest's frames in the course's own files are left out, and the learner's file's are shown with its code", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the script is CommonJS
    const { framesIn, storyOf } = require(script) as {
      framesIn: (file: string, failed: { stack?: string }[]) => string[];
      storyOf: (output: string) => string[];
    };
    const support = path.join(__dirname, 'support', 'track.ts');
    const spec = path.join(__dirname, '04-per-consumer-dedup', '04-per-consumer-dedup.spec.ts');
    const stack = [
      'Error: relation "ex04.processed" does not exist',
      `    at ProcessedMessages.exists (${starter}:25:5)`,
      `    at invariant (${support}:48:9)`,
      `    at Object.<anonymous> (${spec}:106:13)`,
    ].join('\n');
    const line25 = readFileSync(starter, 'utf8').split('\n')[24].trim();
    expect(framesIn(starter, [{ stack }])).toEqual([`  starter.ts:25  ${line25}`]);

    const output = ['PASS something', '  │ the shop placed order 1', '    at Object.<anonymous>', '  │ FAULT: x'].join(
      '\n',
    );
    expect(storyOf(output)).toEqual(['  │ the shop placed order 1', '  │ FAULT: x']);
  });

  describe('--watch', () => {
    let child: ChildProcess | undefined;
    /** Ends the watch and the run it started (its process group), and waits for it to be gone. */
    const stop = async () => {
      if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child!.once('close', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    };
    afterAll(stop);

    it('when the starter is run with --watch and then saved, then it runs again, and its red verdict is kept for the list', async () => {
      writeFileSync(progress, '{}');
      let out = '';
      child = spawn(process.execPath, [script, '04', '--watch'], { cwd: root, env: env(), detached: true });
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const runs = () => out.split('✘ RED:').length - 1;

      await eventually(() => expect(out).toContain('Watching test/exercises/04-per-consumer-dedup/'), {
        what: 'the first run of 04 under --watch',
        timeoutMs: 150_000,
      });
      expect(runs()).toBe(1);
      const kept = JSON.parse(readFileSync(progress, 'utf8'));
      expect(kept['04-per-consumer-dedup'].starter).toMatchObject({ verdict: 'red', failed: 1, total: 1 });

      // Saved, unchanged: the second run starts (it is stopped there, its start is what is checked).
      writeFileSync(starter, readFileSync(starter));
      await eventually(
        () => {
          expect(out).toContain('starter.ts changed: running 04-per-consumer-dedup again');
          expect(out.split('Exercise 04 Per-consumer dedup').length - 1).toBe(2);
        },
        { what: 'the run after the save' },
      );
      await stop();
      expect(exercise('list').out).toMatch(/04-per-consumer-dedup +red \(1 of 1 broken\)/);
    }, 200_000);
  });
});
