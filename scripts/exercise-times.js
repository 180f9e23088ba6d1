#!/usr/bin/env node
// `npm run exercise:times [-- NN ...]`: how long each exercise's two runs take, as a learner types
// them (`npm run exercise -- NN --solution`, then `npm run exercise -- NN`, the starter, red), one
// after the other, from the command to its last line; printed as the timing table of
// test/exercises/README.md, with the load average beside each exercise. Run it on a quiet machine:
// what else runs shows in the load column, and in every figure.
//
// A first run, untimed, builds what later runs reuse (the template database, the compiled tree,
// Node's bytecode cache): its time is printed apart. The runs record their verdicts in a progress
// file of their own, never in the learner's.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { cpus, loadavg, tmpdir, totalmem } = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const exercisesDir = path.join(root, 'test', 'exercises');

/** Every exercise folder, with the name the course README's table of exercises links it by. */
function exercises() {
  const readme = readFileSync(path.join(exercisesDir, 'README.md'), 'utf8');
  const linked = new Map([...readme.matchAll(/\[([^\]]+)\]\((\d\d)-[^)/]+\/\)/g)].map(([, name, n]) => [n, name]));
  return readdirSync(exercisesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d\d-/.test(entry.name))
    .map((entry) => {
      const number = entry.name.slice(0, 2);
      return { number, name: linked.get(number) ?? entry.name.slice(3).replace(/-/g, ' ') };
    })
    .sort((a, b) => a.number.localeCompare(b.number));
}

const load = () => loadavg()[0].toFixed(1);

/** One run as the learner types it; its seconds and the verdict it ended on. */
function run(args, env) {
  const startedAt = process.hrtime.bigint();
  const result = spawnSync('npm', ['run', '--silent', 'exercise', '--', ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
  const out = `${result.stdout}${result.stderr}`;
  const verdict = /GREEN/.test(out) ? 'green' : /RED/.test(out) ? 'red' : /no code to run/.test(out) ? '-' : 'broken';
  return { seconds, verdict };
}

function main() {
  const only = process.argv.slice(2).map((arg) => arg.padStart(2, '0'));
  const chosen = exercises().filter((e) => only.length === 0 || only.includes(e.number));
  const work = mkdtempSync(path.join(tmpdir(), 'exercise-times-'));
  const env = { ...process.env, EXERCISE_PROGRESS: path.join(work, 'progress.json'), FORCE_COLOR: '0' };
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.versions.node}`;
  console.error(`Measuring ${chosen.length} exercise(s) at ${commit} on ${machine}; load ${load()} at start`);

  const warm = run(['01', '--solution'], env);
  console.error(
    `first run (untimed in the table: builds the template, the compiled tree, the caches): ${warm.seconds.toFixed(1)} s`,
  );

  const rows = [];
  for (const { number, name } of chosen) {
    const before = load();
    const solution = run([number, '--solution'], env);
    const starter = run([number], env);
    const after = load();
    const cell = ({ seconds, verdict }) => `${seconds.toFixed(1)} s${verdict === 'broken' ? ' (did not run)' : ''}`;
    rows.push([number, name, cell(solution), cell(starter), `${before} to ${after}`]);
    console.error(`  ${number} ${name}: ${rows.at(-1).slice(2).join(', ')}`);
  }
  rmSync(work, { recursive: true, force: true });

  const header = [
    '#',
    'exercise',
    '`-- NN --solution`',
    '`-- NN` (the starter, red)',
    'load average (1 min) at start, at end',
  ];
  const widths = header.map((title, i) => Math.max(title.length, 3, ...rows.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\nMeasured ${new Date().toISOString().slice(0, 10)} at ${commit}, ${machine}:\n`);
  console.log([line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
}

main();
