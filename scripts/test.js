#!/usr/bin/env node
// `npm test`: makes sure Postgres and Redis answer where the tests look for them (see
// services.js), then runs the whole Jest suite, then checks that every exercise's starter and
// wrong answers are red (see exercise.js). `npm run test:unit` (--unit): only the specs that boot
// no app (jest.unit.config.js), in seconds.
'use strict';
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { checkTargets } = require('./exercise');
const { ensureServices } = require('./services');

const root = path.resolve(__dirname, '..');

async function main() {
  await ensureServices();

  const args = process.argv.slice(2);
  if (args[0] === '--unit') process.exit(jest(['--config', 'jest.unit.config.js', ...args.slice(1)]));
  if (args.length > 0) process.exit(jest(args));
  // The whole suite: first everything but the heaviest files, two at a time; then those, so that
  // the browser, the crash matrices (ours: four lanes of processes booting; the peers': two),
  // chaos, the partitions over hosts and the Redis failovers do not starve the timing of the
  // others, nor the others theirs. Our crash matrix keeps both cores busy: it runs alone. The
  // others mostly wait (for a failover, a partition's timeout, a page, a process's boot), each
  // using under one core: they run two at a time.
  // Exercise 14's check runs a short `npm run compare` of its own (20 s): once for all its answers.
  const figures = mkdtempSync(path.join(tmpdir(), 'exercise-14-figures-'));
  process.env.EXERCISE_14_COMPARE = path.join(figures, 'compare.json');
  const rest = jest(['--testPathIgnorePatterns', ...ALONE, ...PAIRED]);
  const paired = jest([...PAIRED, '--maxWorkers=2']);
  const alone = jest([...ALONE, '--maxWorkers=1']);
  // Jest ran every exercise against its solution; a starter or a wrong answer that passes would
  // make its exercise teach nothing.
  const targets = await checkTargets();
  rmSync(figures, { recursive: true, force: true });
  process.exit([rest, paired, alone, targets].find((status) => status !== 0) ?? 0);
}

/** The files that run after the rest, two at a time. */
const PAIRED = [
  '/test/console/',
  '/test/checkout/peer-crash\\.e2e-spec\\.ts$',
  '/test/chaos\\.e2e-spec\\.ts$',
  '/test/hosts/',
  '/test/topology/redis-failover\\.int-spec\\.ts$',
];

/** The files that run last, one at a time. */
const ALONE = ['/test/checkout/crash\\.e2e-spec\\.ts$'];

function jest(args) {
  const run = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), ...args], { cwd: root, stdio: 'inherit' });
  return run.status ?? 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
