#!/usr/bin/env node
// `npm test`: makes sure Postgres and Redis answer where the tests look for them, starting them
// with docker compose when they do not and Docker is there, then runs the whole Jest suite.
// Without either it fails within seconds and says what to start.
'use strict';
const { spawnSync } = require('node:child_process');
const { Socket } = require('node:net');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const services = [
  {
    name: 'Postgres',
    service: 'postgres',
    url: process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/checkout_test',
    port: 5432,
  },
  { name: 'Redis', service: 'redis', url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', port: 6379 },
];

function answers({ url, port }, timeoutMs = 1000) {
  const { hostname, port: given } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(given || port), hostname.replace(/^\[|\]$/g, ''), () => done(true));
  });
}

const dockerWorks = () => spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 }).status === 0;

async function main() {
  const missing = [];
  for (const service of services) if (!(await answers(service))) missing.push(service);

  if (missing.length > 0) {
    const names = missing.map((s) => `${s.name} (${s.url})`).join(' and ');
    if (!dockerWorks()) {
      console.error(
        `${names} ${missing.length > 1 ? 'do' : 'does'} not answer, and Docker is not available to start ` +
          `${missing.length > 1 ? 'them' : 'it'}.\n` +
          'Start Postgres 15 and Redis 7 locally (see README, "Without Docker"), or install Docker, ' +
          'or point TEST_DATABASE_URL / TEST_REDIS_URL at running ones.',
      );
      process.exit(1);
    }
    console.error(`${names} not answering: starting with docker compose`);
    const up = spawnSync('docker', ['compose', 'up', '--detach', '--wait', ...missing.map((s) => s.service)], {
      cwd: root,
      stdio: 'inherit',
    });
    if (up.status !== 0) process.exit(up.status ?? 1);
    for (const service of missing) {
      if (!(await answers(service, 5000))) {
        console.error(`${service.name} still does not answer at ${service.url}`);
        process.exit(1);
      }
    }
  }

  const args = process.argv.slice(2);
  if (args.length > 0) process.exit(jest(args));
  // The whole suite: first everything but the heaviest files, two at a time; then those alone, so
  // that the browser, the crash matrix (four lanes of processes booting) and chaos do not starve
  // the timing of the others, nor the others theirs.
  const rest = jest(['--testPathIgnorePatterns', ...ALONE]);
  const alone = jest([...ALONE, '--maxWorkers=1']);
  process.exit(rest !== 0 ? rest : alone);
}

/** The files that run after the rest, one at a time. */
const ALONE = ['/test/console/', '/test/checkout/crash\\.e2e-spec\\.ts$', '/test/chaos\\.e2e-spec\\.ts$'];

function jest(args) {
  const run = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), ...args], { cwd: root, stdio: 'inherit' });
  return run.status ?? 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
