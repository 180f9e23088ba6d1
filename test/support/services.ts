import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { assertTestDatabase, TEST_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/** Whether something accepts TCP connections at the URL's host and port, within `timeoutMs`. */
export function answers(url: string, defaultPort: number, timeoutMs = 1_500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || defaultPort), hostname.replace(/^\[|\]$/g, ''), () => done(true));
  });
}

/** Fails unless Postgres and Redis answer where the tests look for them; names the run. */
export async function checkServices(command: string): Promise<void> {
  assertTestDatabase(TEST_DATABASE_URL);
  for (const [name, url, port] of [
    ['Postgres', TEST_DATABASE_URL, 5432],
    ['Redis', TEST_REDIS_URL, 6379],
  ] as const) {
    if (!(await answers(url, port))) {
      throw new Error(`${name} does not answer at ${url}: run the tests with "${command}", which starts it.`);
    }
  }
  process.env.TEST_RUN_ID ??= randomBytes(3).toString('hex');
}
