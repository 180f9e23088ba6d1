import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../test/support/app-process';
import { BENCH_DATABASE_URL, recreateDatabase, until, withDatabase } from './bench-env';

let started: Promise<string> | undefined;

/**
 * The fiscal authority the bench's checkouts invoice at: FISCAL_AUTHORITY_URL when the bench was
 * given one, else `npm run fiscal-authority`'s process, started once for the bench on a free
 * port, over a bench database of its own, and killed when the bench ends. A process of its own,
 * as a deployment has it: its CPU is not the app's.
 */
export function benchAuthorityUrl(): Promise<string> {
  if (process.env.FISCAL_AUTHORITY_URL) return Promise.resolve(process.env.FISCAL_AUTHORITY_URL);
  started ??= startAuthority();
  return started;
}

async function startAuthority(): Promise<string> {
  const databaseUrl = withDatabase(BENCH_DATABASE_URL, 'checkout_bench_authority');
  await recreateDatabase(databaseUrl);
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'participants/fiscal-authority/main.ts'], {
    cwd: path.resolve(__dirname, '..'),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      FISCAL_AUTHORITY_PORT: String(port),
      FISCAL_AUTHORITY_DATABASE_URL: databaseUrl,
    },
    stdio: 'ignore',
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  const answers = async () => (await fetch(`${url}/v1/references/none/documents`).catch(() => undefined))?.ok === true;
  await until(answers, 60_000, 100);
  return url;
}
