import { randomUUID } from 'node:crypto';
import { AppProcess } from './app-process';
import { eventually } from './eventually';
import { Ledger, LedgerFixtureModule } from './fixtures/ledger.fixture';
import { TestApp } from './test-app';
import type { TestDatabase } from './test-database';

/** What the killer fixtures run with: the entry of 66 kills its worker, and two crashes dead-letter it. */
export const killerEnv = (database: TestDatabase, queuePrefix: string, roles = 'api,relay,worker') => ({
  DATABASE_URL: database.url,
  QUEUE_PREFIX: queuePrefix,
  APP_ROLES: roles,
  ADMIN_TOKEN: 'test-admin-token-0123456789',
  KILLER_AMOUNT: '66',
  OUTBOX_CRASH_LIMIT: '2',
  OUTBOX_JOB_LOCK_MS: '1000',
  OUTBOX_REDELIVER_AFTER_MS: '60000',
});

/**
 * Records one ledger entry an amount, by an app that neither relays nor works, so that the first
 * process that does finds them all in one batch a queue. Returns the entries' ids, in order.
 */
export async function recordEntries(database: TestDatabase, queuePrefix: string, amounts: number[]): Promise<string[]> {
  const recorder = await TestApp.start({
    database,
    queuePrefix,
    imports: [LedgerFixtureModule],
    env: { APP_ROLES: 'api' },
  });
  const entries = amounts.map(() => randomUUID());
  for (const [index, entryId] of entries.entries()) await recorder.get(Ledger).record(entryId, amounts[index]);
  await recorder.stop();
  return entries;
}

/** The dead letters, with the entry each message is about, by consumer. */
export const deadLetters = (database: TestDatabase) =>
  database.query<{ entry: string; consumer: string; error: string }>(
    `SELECT m.payload->>'entryId' AS entry, d.consumer, d.error FROM outbox.dead_letters d
       JOIN outbox.messages m ON m.id = d.message_id ORDER BY d.consumer`,
  );

/**
 * Starts the app again and again until the killer is dead-lettered, each process either dying or
 * living to see it; `started` is told of each process (to stop the last one). Returns the deaths.
 */
export async function untilTheKillerIsDeadLettered(
  start: () => Promise<AppProcess>,
  killerDead: () => Promise<boolean>,
  started: (app: AppProcess) => void,
): Promise<number> {
  let deaths = 0;
  while (!(await killerDead())) {
    const running = await start();
    started(running);
    const ended = await eventually(
      async () => {
        if (!running.anyAlive) return 'died';
        expect(await killerDead()).toBe(true);
        return 'dead-lettered';
      },
      { timeoutMs: 120_000, what: 'the app to die or the killer to be dead-lettered' },
    );
    if (ended === 'died') deaths += 1;
    expect(deaths).toBeLessThanOrEqual(4);
  }
  return deaths;
}
