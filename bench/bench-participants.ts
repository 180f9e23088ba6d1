import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../test/support/app-process';
import { BENCH_DATABASE_URL, recreateDatabase, until, withDatabase } from './bench-env';

/** A participant service as the bench starts it: its entry, its variables' prefix, its database's suffix, a path it answers 200 on. */
interface Participant {
  entry: string;
  prefix: string;
  suffix: string;
  probe: string;
}

const AUTHORITY: Participant = {
  entry: 'participants/fiscal-authority/main.ts',
  prefix: 'FISCAL_AUTHORITY',
  suffix: 'authority',
  probe: '/v1/references/none/documents',
};
const GATEWAY: Participant = {
  entry: 'participants/card-gateway/main.ts',
  prefix: 'CARD_GATEWAY',
  suffix: 'gateway',
  probe: '/v1/references/none/operations',
};

const started = new Map<Participant, Promise<string>>();

/**
 * The participants the bench's checkouts reach, ours and the peers' alike (like for like): the
 * fiscal authority and the card gateway, each `<PREFIX>_URL` when the bench was given one, else
 * its service's process, started once for the bench on a free port, over a bench database of its
 * own, and killed when the bench ends. A process of its own, as a deployment has it: its CPU and
 * its Postgres round trips are not the app's.
 */
export async function benchParticipants(): Promise<{ FISCAL_AUTHORITY_URL: string; CARD_GATEWAY_URL: string }> {
  const [authority, gateway] = await Promise.all([urlOf(AUTHORITY), urlOf(GATEWAY)]);
  return { FISCAL_AUTHORITY_URL: authority, CARD_GATEWAY_URL: gateway };
}

function urlOf(participant: Participant): Promise<string> {
  const given = process.env[`${participant.prefix}_URL`];
  if (given) return Promise.resolve(given);
  if (!started.has(participant)) started.set(participant, start(participant));
  return started.get(participant)!;
}

async function start({ entry, prefix, suffix, probe }: Participant): Promise<string> {
  // Named after the bench's own (checkout_bench_gateway): two benches on one Postgres stay apart.
  const bench = decodeURIComponent(new URL(BENCH_DATABASE_URL).pathname.slice(1));
  const databaseUrl = withDatabase(BENCH_DATABASE_URL, `${bench}_${suffix}`);
  await recreateDatabase(databaseUrl);
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', entry], {
    cwd: path.resolve(__dirname, '..'),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      [`${prefix}_PORT`]: String(port),
      [`${prefix}_DATABASE_URL`]: databaseUrl,
    },
    stdio: 'ignore',
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  const answers = async () => (await fetch(`${url}${probe}`).catch(() => undefined))?.ok === true;
  await until(answers, 60_000, 100);
  return url;
}
