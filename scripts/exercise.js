#!/usr/bin/env node
// `npm run exercise -- NN` runs exercise NN (test/exercises/NN-*/) against your starter.ts and
// tells the story as it goes; `-- NN --solution` runs the reference answer; `-- NN --wrong <what>`
// runs wrong-<what>.ts, a wrong answer people often write; `--target <file>` runs <file>.ts of the
// folder (a variant of yours, the starter left alone). The last line says green, or which
// invariant is still broken. `--watch` runs again on each save, `--hint N` prints hint N (from the
// folder's hints.md), and `npm run exercise -- list` shows each exercise's last run.
//
// `npm test` uses checkTargets() from here: every starter and wrong answer must be red, and every
// further solution (solution-<style>.ts) green.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  watch: watchFs,
  writeFileSync,
} = require('node:fs');
const { tmpdir } = require('node:os');
const { stripVTControlCharacters } = require('node:util');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const exercisesDir = path.join(root, 'test', 'exercises');
const color = (code) => (text) => (process.stdout.isTTY ? `\x1b[${code}m${text}\x1b[0m` : text);
const green = color('32');
const red = color('31');
const bold = color('1');
const dim = color('2');

/** Every exercise folder (NN-slug), with its spec when it has one. */
function exercises() {
  return readdirSync(exercisesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d\d-/.test(entry.name))
    .map((entry) => {
      const dir = path.join(exercisesDir, entry.name);
      const spec = readdirSync(dir).find((file) => file.endsWith('.spec.ts'));
      return { name: entry.name, number: entry.name.slice(0, 2), dir, spec: spec && path.join(dir, spec) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The answers in a folder besides solution.ts, and what each must do: starter and wrong-* red, solution-* green. */
function targetsOf(exercise) {
  return readdirSync(exercise.dir)
    .map((file) => /^(starter|wrong-[\w-]+|solution-[\w-]+)\.ts$/.exec(file)?.[1])
    .filter(Boolean)
    .sort()
    .map((target) => ({ target, expect: target.startsWith('solution') ? 'green' : 'red' }));
}

/** The node to run Jest with: this one when it is new enough, else a Node 24 from scripts/node24.sh. */
function nodeBinary() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 15)) return process.execPath;
  const found = spawnSync('bash', [path.join(__dirname, 'node24.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (found.status !== 0) {
    console.error(`This project needs Node 22.15 or newer (this is ${process.version}), and none could be fetched.`);
    process.exit(1);
  }
  return path.join(found.stdout.trim(), 'node');
}

/**
 * Runs Jest on exercises' specs, each against its answer (`targets`: folder name -> answer).
 * Resolves with Jest's exit code, its JSON results and, when `quiet`, its output.
 */
function runJest(
  specs,
  targets,
  { narrate = false, quiet = false, failFast = false, workers = 1, timeline = false } = {},
) {
  const work = mkdtempSync(path.join(tmpdir(), 'exercise-'));
  const outputFile = path.join(work, 'results.json');
  const args = [
    require.resolve('jest/bin/jest'),
    ...specs,
    // The learner's run is the default lane's; `npm test` runs the solutions in the queue lane too.
    '--selectProjects=polling',
    // One file runs in Jest's own process: no worker to start, nor to load the app again. Jest
    // then ends its own process, as it ends its workers, whatever a failed spec left running.
    ...(specs.length === 1 ? ['--runInBand', '--forceExit'] : [`--maxWorkers=${workers}`]),
    '--json',
    `--outputFile=${outputFile}`,
    ...(narrate ? ['--verbose'] : []),
    ...(!quiet && process.stdout.isTTY ? ['--colors'] : []),
  ];
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = spawn(nodeBinary(), args, {
      cwd: root,
      env: {
        ...process.env,
        EXERCISE_TARGETS: JSON.stringify(targets),
        EXERCISE_NARRATE: narrate ? '1' : '',
        EXERCISE_TIMELINE: timeline ? '1' : '',
        EXERCISE_FAIL_FAST: failFast ? '1' : '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const pass = (to) => (chunk) => {
      output += chunk;
      if (quiet) return;
      // Where the JSON went is the script's business, not the learner's.
      const text = chunk.toString('utf8').replace(/^Test results written to: .*\n?/gm, '');
      if (text) to.write(text);
    };
    child.stdout.on('data', pass(process.stdout));
    child.stderr.on('data', pass(process.stderr));
    child.on('exit', (code) => {
      let results;
      try {
        results = JSON.parse(readFileSync(outputFile, 'utf8'));
      } catch {
        results = undefined;
      }
      rmSync(work, { recursive: true, force: true });
      resolve({ code: code ?? 1, results, output, seconds: (Date.now() - startedAt) / 1000 });
    });
  });
}

/** The results of one spec file in a run, if Jest reported it. */
const suiteOf = (results, spec) => results?.testResults?.find((suite) => path.resolve(suite.name) === spec);

/** What one spec file came to: green, red (with the tests that failed), or did not run at all. */
function verdictOf(suite) {
  const tests = suite?.assertionResults ?? [];
  if (!suite || suite.testExecError || (suite.status === 'failed' && tests.every((t) => t.status !== 'failed'))) {
    const message = suite?.message || suite?.testExecError?.message || 'Jest did not report any result';
    return { kind: 'broken', message: stripVTControlCharacters(message).trim().split('\n').slice(0, 8).join('\n') };
  }
  const failed = tests.filter((test) => test.status === 'failed');
  if (suite.status === 'passed' && failed.length === 0) return { kind: 'green', total: tests.length };
  return {
    kind: 'red',
    total: tests.length,
    failed: failed.map((test) => ({
      title: test.title,
      why: whyOf(test.failureMessages?.[0] ?? ''),
      stack: test.failureMessages?.join('\n'),
    })),
  };
}

/** What broke, from a failure: its first line, and Jest's Expected/Received lines if it has them. */
function whyOf(failure) {
  const lines = stripVTControlCharacters(failure)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^at /.test(line));
  const values = lines.filter((line) => /^(Expected|Received\b|expected:|got:)/.test(line)).slice(0, 2);
  return [lines[0]?.replace(/^Error: /, ''), ...values].filter(Boolean).join('\n      ');
}

/** The exercise's title and its "What to look for", from its README. */
function header(exercise, target) {
  const readme = path.join(exercise.dir, 'README.md');
  const text = existsSync(readme) ? readFileSync(readme, 'utf8') : '';
  const title = /^# (.+)$/m.exec(text)?.[1] ?? exercise.name;
  const section = text.split(/^## /m).find((part) => /^What to look for/i.test(part));
  const look = section?.split('\n').slice(1).join('\n').trim();
  const lines = [
    '',
    bold(`Exercise ${title}`),
    dim(`${path.relative(root, readme)} tells the story; running against ${target}.ts`),
  ];
  if (look)
    lines.push(
      '',
      bold('What to look for'),
      ...look
        .split('\n')
        .slice(0, 12)
        .map((line) => `  ${line}`),
    );
  lines.push('');
  return lines.join('\n');
}

function usage() {
  console.error(
    'Usage: npm run exercise -- NN                  run exercise NN against your starter.ts\n' +
      '       npm run exercise -- NN --watch          again each time you save a file of the exercise\n' +
      '       npm run exercise -- NN --hint N         print hint N of the exercise (1, 2, ...)\n' +
      '       npm run exercise -- NN --target <file>  run <file>.ts of the folder instead of starter.ts\n' +
      '       npm run exercise -- NN --solution | --wrong <what>   the reference, or a wrong answer\n' +
      "       (and --timeline: each checkout's messages in the story; --jest: Jest's own output)\n" +
      '       npm run exercise -- list                each exercise green, red or not tried, from its last run\n' +
      '       npm run exercise -- --check [NN ...]    every starter and wrong answer red, every solution-* green\n' +
      `Exercises: ${exercises()
        .map((e) => e.name)
        .join(', ')}`,
  );
  process.exit(2);
}

/** Where the last run of each exercise is kept (git-ignored): EXERCISE_PROGRESS, or test/exercises/.progress.json. */
const progressFile = () => process.env.EXERCISE_PROGRESS || path.join(exercisesDir, '.progress.json');

/** The last run of each exercise's answers, by folder and answer: { verdict, failed, total, at }. */
function readProgress() {
  try {
    return JSON.parse(readFileSync(progressFile(), 'utf8'));
  } catch {
    return {};
  }
}

function recordProgress(exercise, target, verdict) {
  const progress = readProgress();
  progress[exercise.name] = {
    ...progress[exercise.name],
    [target]: {
      verdict: verdict.kind,
      ...(verdict.kind === 'red' ? { failed: verdict.failed.length, total: verdict.total } : {}),
      at: new Date().toISOString(),
    },
  };
  writeFileSync(progressFile(), `${JSON.stringify(progress, null, 2)}\n`);
}

/** The answers a learner writes: the starter, or a file of their own run with --target. */
const isLearners = (target) => !/^(solution|wrong-)/.test(target);

/** `npm run exercise -- list`: each exercise, green, red or not tried, from the last run of your answer. */
function list() {
  const progress = readProgress();
  const rows = exercises().map((exercise) => {
    const runs = Object.entries(progress[exercise.name] ?? {}).filter(([target]) => isLearners(target));
    const starter = progress[exercise.name]?.starter;
    const state = !exercise.spec
      ? dim('no code: read the README')
      : !starter
        ? dim('not tried')
        : starter.verdict === 'green'
          ? green('green')
          : red(starter.verdict === 'red' ? `red (${starter.failed} of ${starter.total} broken)` : 'did not run');
    const others = runs
      .filter(([target]) => target !== 'starter')
      .map(([target, run]) => `${target}.ts ${run.verdict}`)
      .join(', ');
    const when = starter ? dim(` ${starter.at.slice(0, 16).replace('T', ' ')}`) : '';
    return `  ${exercise.name.padEnd(36)} ${state}${when}${others ? dim(` (also ${others})`) : ''}`;
  });
  const done = exercises().filter((e) => e.spec && progress[e.name]?.starter?.verdict === 'green').length;
  const coded = exercises().filter((e) => e.spec).length;
  console.log([bold(`Your starters: ${done} of ${coded} green, from each one's last run`), ...rows].join('\n'));
  const next = exercises().find((e) => e.spec && progress[e.name]?.starter?.verdict !== 'green');
  if (next) console.log(dim(`Next: npm run exercise -- ${next.number}`));
}

/** The exercise's hints, from its hints.md: the text under each "## Hint N" heading. */
function hintsOf(exercise) {
  const file = path.join(exercise.dir, 'hints.md');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split(/^## /m)
    .slice(1)
    .filter((part) => /^Hint \d+/.test(part))
    .map((part) => {
      const [heading, ...body] = part.split('\n');
      return { title: heading.trim(), text: body.join('\n').trim() };
    });
}

/** `--hint N`: hint N of the exercise, and how many there are. */
function hint(exercise, which) {
  const hints = hintsOf(exercise);
  if (hints.length === 0) {
    console.log(`${exercise.name} has no hints: its README has what you need.`);
    return 0;
  }
  const n = Number(which ?? 1);
  if (!Number.isInteger(n) || n < 1 || n > hints.length) {
    console.error(`${exercise.name} has hints 1 to ${hints.length}: npm run exercise -- ${exercise.number} --hint 1`);
    return 2;
  }
  const { title, text } = hints[n - 1];
  console.log(`\n${bold(`${exercise.name}, ${title}`)} ${dim(`(${n} of ${hints.length})`)}\n`);
  console.log(text.replace(/^/gm, '  '));
  console.log(
    n < hints.length
      ? dim(`\nStill stuck? npm run exercise -- ${exercise.number} --hint ${n + 1}`)
      : dim('\nThat was the last hint.'),
  );
  return 0;
}

/** The value after a flag (`--wrong x`), if the flag is there. */
function option(args, flag) {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : (args[at + 1] ?? '');
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--check')) {
    await require('./services').ensureServices();
    const only = args.filter((arg) => /^\d{1,2}$/.test(arg)).map((arg) => arg.padStart(2, '0'));
    process.exit(await checkTargets({ only }));
  }
  if (args[0] === 'list' || args.includes('--list')) return list();
  const number = args.find((arg, i) => /^\d{1,2}$/.test(arg) && args[i - 1] !== '--hint');
  if (!number) usage();
  const exercise = exercises().find((e) => e.number === number.padStart(2, '0'));
  if (!exercise) usage();
  if (args.includes('--hint')) process.exit(hint(exercise, option(args, '--hint') || undefined));
  const wrong = option(args, '--wrong');
  const given = option(args, '--target');
  const target = args.includes('--solution')
    ? 'solution'
    : wrong !== undefined
      ? `wrong-${wrong.replace(/^wrong-/, '').replace(/\.ts$/, '')}`
      : given !== undefined
        ? path.basename(given).replace(/\.ts$/, '')
        : 'starter';

  if (!exercise.spec) {
    console.log(header(exercise, 'README'));
    console.log(
      `This exercise has no code to run: follow ${path.relative(root, path.join(exercise.dir, 'README.md'))}.`,
    );
    return;
  }
  if (!existsSync(path.join(exercise.dir, `${target}.ts`))) {
    const known = ['solution', ...targetsOf(exercise).map((t) => t.target)].join(', ');
    console.error(`${exercise.name} has no ${target}.ts (it has ${known})`);
    process.exit(2);
  }

  await require('./services').ensureServices();
  const options = { jest: args.includes('--jest'), timeline: args.includes('--timeline') };
  if (!args.includes('--watch')) process.exit(await runOnce(exercise, target, options));
  await watch(exercise, target, options);
}

/**
 * One run of the exercise against `target`; its verdict is kept for `list`. What it prints, in
 * this order: green, or red with the invariants still broken; then the story of the run (the
 * spec's `│` lines); then where the learner's own file threw, if it did (Jest's frames in the
 * course's specs and support files are left out). `options.jest` prints Jest's own output as it
 * comes instead; `options.timeline` adds each checkout's timeline to the story. Returns the exit code.
 */
async function runOnce(exercise, target, options = {}) {
  console.log(header(exercise, target));
  const fileOf = path.join(exercise.dir, `${target}.ts`);
  const file = path.relative(root, fileOf);
  if (!options.jest) console.log(dim(`  running ${file}…`));
  const run = await runJest(
    [exercise.spec],
    { [exercise.name]: target },
    {
      narrate: true,
      quiet: !options.jest,
      timeline: options.timeline,
    },
  );
  const verdict = verdictOf(suiteOf(run.results, exercise.spec));
  recordProgress(exercise, target, verdict);
  const took = `${run.seconds.toFixed(1)} s`;
  console.log('');
  if (verdict.kind === 'green') {
    console.log(green(`✔ GREEN: ${file} keeps every invariant of ${exercise.name} (${took})`));
  } else if (verdict.kind === 'broken') {
    console.log(red(`✘ ${file} did not run (${took}):\n${verdict.message}`));
  } else {
    console.log(red(`✘ RED: ${verdict.failed.length} of ${verdict.total} still broken with ${file} (${took}):`));
    for (const { title, why } of verdict.failed) console.log(red(`  ✘ ${title}${why ? `\n      ${why}` : ''}`));
  }
  if (!options.jest) {
    const story = storyOf(run.output);
    if (story.length > 0) console.log(['', bold('What happened'), ...story].join('\n'));
    const threw = verdict.kind === 'red' ? framesIn(fileOf, verdict.failed) : [];
    if (threw.length > 0) console.log(['', bold(`Where ${path.basename(file)} threw`), ...threw].join('\n'));
  }
  if (verdict.kind !== 'green' && isLearners(target)) {
    const hints = hintsOf(exercise).length;
    const stuck = hints ? ` (stuck? npm run exercise -- ${exercise.number} --hint 1)` : '';
    console.log(dim(`\nEdit ${file} until this turns green${stuck}.`));
  }
  if (!options.timeline && /narrateTimeline\(/.test(readFileSync(exercise.spec, 'utf8'))) {
    console.log(dim(`--timeline adds each checkout's messages and deliveries to the story.`));
  }
  return verdict.kind === 'green' ? 0 : 1;
}

/** The spec's story of a run: the `│` lines it narrated, in order. */
function storyOf(output) {
  return stripVTControlCharacters(output)
    .split('\n')
    .filter((line) => /^\s*│/.test(line))
    .map((line) => `  ${line.trim()}`);
}

/** The frames of the failures that point into the learner's file, each with its line of code. */
function framesIn(fileOf, failed) {
  const source = existsSync(fileOf) ? readFileSync(fileOf, 'utf8').split('\n') : [];
  const seen = new Set();
  const frames = [];
  for (const { stack } of failed) {
    for (const line of stripVTControlCharacters(stack ?? '').split('\n')) {
      const at = line.indexOf(`${fileOf}:`);
      if (at < 0) continue;
      const [lineNo] = line.slice(at + fileOf.length + 1).split(':');
      if (seen.has(lineNo)) continue;
      seen.add(lineNo);
      frames.push(`  ${path.basename(fileOf)}:${lineNo}  ${(source[Number(lineNo) - 1] ?? '').trim()}`);
    }
  }
  return frames.slice(0, 5);
}

/**
 * `--watch`: runs the exercise, then again each time a file of its folder is saved (a save during
 * a run starts one more run after it). Ends with Ctrl-C.
 */
async function watch(exercise, target, options) {
  let running = false;
  let again = false;
  let timer;
  const folder = path.relative(root, exercise.dir);
  const cycle = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    do {
      again = false;
      await runOnce(exercise, target, options);
      console.log(dim(`\nWatching ${folder}/: save a file to run again (Ctrl-C to stop).`));
    } while (again);
    running = false;
  };
  watchFs(exercise.dir, (event, file) => {
    if (!file || !/\.(ts|sql|json)$/.test(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      console.log(dim(`\n${file} changed: running ${exercise.name} again`));
      void cycle();
    }, 200);
  });
  await cycle();
  await new Promise(() => {}); // until Ctrl-C
}

/**
 * Every exercise's starter and wrong answers must be red (failing on an invariant, not failing to
 * run), and every solution-<style>.ts green. Runs in rounds, one Jest run each, three files at a
 * time (a run spends much of its time waiting on its app, so two at a time leave a core idle): the
 * first round takes each exercise's first such answer, the second its second, and so on; a red
 * file stops at its first failing test. Returns the exit code.
 */
async function checkTargets({ only = [] } = {}) {
  const all = exercises()
    .filter((exercise) => exercise.spec && (only.length === 0 || only.includes(exercise.number)))
    .map((exercise) => ({ exercise, targets: targetsOf(exercise) }));
  const count = all.reduce((n, { targets }) => n + targets.length, 0);
  if (count === 0) return 0;
  console.log(`\nExercise answers that must be red (starter, wrong-*) or green (solution-*): ${count}`);
  const startedAt = Date.now();
  const problems = [];
  for (let round = 0; all.some(({ targets }) => targets.length > round); round++) {
    const runs = all
      .filter(({ targets }) => targets.length > round)
      .map(({ exercise, targets }) => ({ exercise, ...targets[round] }));
    const run = await runJest(
      runs.map(({ exercise }) => exercise.spec),
      Object.fromEntries(runs.map(({ exercise, target }) => [exercise.name, target])),
      { quiet: true, failFast: true, workers: 3 },
    );
    for (const { exercise, target, expect } of runs) {
      const suite = suiteOf(run.results, exercise.spec);
      const verdict = verdictOf(suite);
      const name = `${exercise.name}/${target}.ts`;
      if (verdict.kind === expect) {
        const detail = expect === 'red' ? `${verdict.failed[0].title}` : `${verdict.total} passed`;
        // The spec file's own time, from Jest's report (its start to its end, the app's boot included).
        const took =
          suite?.endTime && suite?.startTime ? `, ${((suite.endTime - suite.startTime) / 1000).toFixed(1)} s` : '';
        console.log(`  ${green('✔')} ${name}: ${expect} as it must be (${detail}${took})`);
        continue;
      }
      const said =
        verdict.kind === 'broken'
          ? `did not run: ${verdict.message}`
          : verdict.kind === 'green'
            ? 'PASSED: it must be red, or the exercise teaches nothing'
            : `is red: ${verdict.failed.map((f) => `${f.title}: ${f.why}`).join('; ')}`;
      console.log(`  ${red('✘')} ${name} ${said}`);
      problems.push(name);
    }
    console.log(dim(`  (round ${round + 1}: ${runs.length} file(s) in ${run.seconds.toFixed(0)} s)`));
  }
  const took = `${((Date.now() - startedAt) / 1000).toFixed(0)} s`;
  if (problems.length > 0) {
    console.log(red(`Exercise answers not as they must be: ${problems.join(', ')} (${took})`));
    return 1;
  }
  console.log(green(`Every exercise answer is as it must be (${took})`));
  return 0;
}

module.exports = { checkTargets, framesIn, storyOf };

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
