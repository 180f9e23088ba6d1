import { randomUUID } from 'node:crypto';
import { Subscriptions } from '../../src/infra/outbox/consuming/subscriptions';
import { eventually } from '../support/eventually';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { THROUGH_THE_QUEUES } from '../support/test-env';

/** The (message, consumer) pairs the relays had to push: each message, to every consumer it is routed to. */
async function routedPairs(app: TestApp): Promise<number> {
  const messages = await app.database.query<{ type: string; headers: Record<string, string> }>(
    `SELECT type, headers FROM outbox.messages`,
  );
  const subscriptions = app.get(Subscriptions);
  return messages.reduce((sum, { type, headers }) => sum + subscriptions.of(type, headers).length, 0);
}

describe('Replicas sharing one database and one Redis', () => {
  let database: TestDatabase;
  const replicas: TestApp[] = [];

  beforeAll(async () => {
    database = await TestDatabase.create();
    const env = {
      ...QUIET_ENV,
      ...THROUGH_THE_QUEUES,
      OUTBOX_RELAY_INTERVAL_MS: '50',
      OUTBOX_RELAY_BATCH_SIZE: '7',
      OUTBOX_WORKER_CONCURRENCY: '4',
    };
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
    await quiet(replicas[0]);
    const [{ pairs, effects }] = await database.query<{ pairs: number; effects: number }>(
      `SELECT count(DISTINCT (consumer, entry_id))::int AS pairs, count(*)::int AS effects
         FROM fixture.effects WHERE entry_id = ANY($1::uuid[])`,
      [entryIds],
    );
    expect({ pairs, effects }).toEqual({ pairs: entryIds.length * 3, effects: entryIds.length * 3 });
    // Together the relays pushed each (message, consumer) once: no row was claimed by both.
    const pushed = await Promise.all(replicas.map((replica) => metricValue(replica, 'outbox_relayed_jobs_total')));
    expect(pushed.reduce((sum, n) => sum + n, 0)).toBe(await routedPairs(replicas[0]));
    // Polling relays share the claims; the logical relay has one reader of the slot at a time.
    const relaying = pushed.filter((n) => n > 0).length;
    expect(relaying).toBe(process.env.TEST_OUTBOX_RELAY === 'logical' ? 1 : replicas.length);
    for (const replica of replicas) {
      expect(await metricValue(replica, 'outbox_consumed_total', { outcome: 'ok' })).toBeGreaterThan(0);
    }
  });
});
