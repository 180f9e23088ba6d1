// Makes sure Postgres and Redis answer where the tests look for them, starting compose's test
// services (the `test` profile) when they do not and Docker is there; without either it exits
// within seconds and says
// what to start. Used by `npm test` and `npm run exercise`.
'use strict';
const { spawnSync } = require('node:child_process');
const { Socket } = require('node:net');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const services = [
  {
    name: 'Postgres',
    service: 'test-postgres',
    url: process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/checkout_test',
    port: 5432,
  },
  { name: 'Redis', service: 'test-redis', url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', port: 6379 },
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

async function ensureServices() {
  const missing = [];
  for (const service of services) if (!(await answers(service))) missing.push(service);
  if (missing.length === 0) return;

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
  console.error(`${names} not answering: starting compose's test services`);
  // The `test` profile's throwaway servers: compose's own Postgres and Redis have passwords of
  // their own and are not published on the host.
  const up = spawnSync(
    'docker',
    ['compose', '--profile', 'test', 'up', '--detach', '--wait', ...missing.map((s) => s.service)],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (up.status !== 0) process.exit(up.status ?? 1);
  for (const service of missing) {
    if (!(await answers(service, 5000))) {
      console.error(`${service.name} still does not answer at ${service.url}`);
      process.exit(1);
    }
  }
}

module.exports = { ensureServices };
