import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { ArchiveFixtureModule } from '../support/fixtures/archive.fixture';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/**
 * A rolling deploy: the old version (the only relay, and workers) and the new one (workers, with
 * a consumer that the old version does not have) on one database and one queue prefix.
 */
describe('Two versions of the app at once', () => {
  let database: TestDatabase;
  let oldApp: TestApp;
  let newApp: TestApp;
  const env = { OUTBOX_RELAY_INTERVAL_MS: '50', OUTBOX_REDELIVER_AFTER_MS: '500', OUTBOX_SWEEP_INTERVAL_MS: '100' };

  const effects = (consumer: string, entryIds: string[]) =>
    database.query<{ entry_id: string; n: number }>(
      `SELECT entry_id, count(*)::int AS n FROM fixture.effects
        WHERE consumer = $1 AND entry_id = ANY($2::uuid[]) GROUP BY entry_id`,
      [consumer, entryIds],
    );

  beforeAll(async () => {
    database = await TestDatabase.create();
    oldApp = await TestApp.start({ imports: [LedgerFixtureModule], database, env });
    newApp = await TestApp.start({
      imports: [LedgerFixtureModule, ArchiveFixtureModule],
      database,
      queuePrefix: oldApp.queuePrefix,
      env: { ...env, APP_ROLES: 'worker' },
    });
  });
  afterAll(async () => {
    await newApp.stop();
    await oldApp.stop();
    await database.drop();
  });

  it('when only the new version has a consumer, then the old relay and sweep still deliver to it, once each', async () => {
    const entryIds = Array.from({ length: 20 }, () => randomUUID());

    for (const entryId of entryIds) await oldApp.get(Ledger).record(entryId, 1);

    // A job the old workers take is left for a second, then taken again by whichever worker is
    // first: the new version's, or the old's again. Alone it takes 2 to 8 s; beside the rest of the
    // suite on a two-core machine, the last job bounced for 30 to 40 s now and then (before the
    // work on speed as after it), so the wait is generous; how long a left job can bounce is an
    // open question for rolling deploys, not this test's.
    await eventually(async () => expect(await effects('audit.archive-entry', entryIds)).toHaveLength(20), {
      timeoutMs: 100_000,
    });
    await eventually(async () => {
      const [row] = await database.query<{ undelivered: number }>(
        `SELECT count(*)::int AS undelivered FROM outbox.messages
          WHERE type = 'ledger.entry-recorded.v1' AND aggregate_id = ANY($1) AND delivered_at IS NULL`,
        [entryIds],
      );
      expect(row.undelivered).toBe(0);
    });
    for (const consumer of ['audit.archive-entry', 'ledger.apply-entry', 'audit.note-entry']) {
      expect((await effects(consumer, entryIds)).every((row) => row.n === 1)).toBe(true);
    }
    // The old workers that took the new consumer's jobs left them, without handling or dropping them.
    expect(await metricValue(oldApp, 'outbox_consumed_total', { consumer: 'audit.archive-entry', outcome: 'ok' })).toBe(
      0,
    );
  }, 150_000);
});
