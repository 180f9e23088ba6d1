import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

describe('Replicas sharing one database and one Redis', () => {
  let database: TestDatabase;
  const replicas: TestApp[] = [];

  beforeAll(async () => {
    database = await TestDatabase.create();
    const env = { OUTBOX_RELAY_INTERVAL_MS: '50', OUTBOX_RELAY_BATCH_SIZE: '7', OUTBOX_WORKER_CONCURRENCY: '4' };
    replicas.push(await TestApp.start({ imports: [LedgerFixtureModule], database, env }));
    replicas.push(
      await TestApp.start({ imports: [LedgerFixtureModule], database, queuePrefix: replicas[0].queuePrefix, env }),
    );
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    await database.drop();
  });

  it('when two relays and two worker sets share the work, then every (message, consumer) takes effect exactly once', async () => {
    const entryIds = Array.from({ length: 150 }, () => randomUUID());

    await Promise.all(entryIds.map((entryId, i) => replicas[i % 2].get(Ledger).record(entryId, i)));

    await eventually(
      async () => {
        const [row] = await database.query<{ pairs: number; effects: number }>(
          `SELECT count(DISTINCT (consumer, entry_id))::int AS pairs, count(*)::int AS effects
             FROM fixture.effects WHERE entry_id = ANY($1::uuid[])`,
          [entryIds],
        );
        expect(row).toEqual({ pairs: entryIds.length * 3, effects: entryIds.length * 3 });
      },
      { timeoutMs: 30_000 },
    );
    for (const replica of replicas) {
      expect(await metricValue(replica, 'outbox_relayed_jobs_total')).toBeGreaterThan(0);
      expect(await metricValue(replica, 'outbox_consumed_total', { outcome: 'ok' })).toBeGreaterThan(0);
    }
  });
});
