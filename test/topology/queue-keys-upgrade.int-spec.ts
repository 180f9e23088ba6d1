import { type Job, Queue } from 'bullmq';
import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { OutboxJobData } from '../../src/infra/outbox/outbox.queues';
import { queuePrefixOf } from '../../src/infra/outbox/queue-prefix';
import { eventually } from '../support/eventually';
import { EntryRecorded, Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { quiet } from '../support/quiet';
import { RedisServer } from '../support/redis-server';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/**
 * Before each queue had a hash tag of its own, every queue of a deployment lived under one prefix,
 * `<prefix>:<queue>:...` (the derived prefix in braces). An upgraded app neither reads nor moves
 * jobs left there: the redelivery sweep pushes their messages again once they are
 * OUTBOX_REDELIVER_AFTER_MS old, and the inbox absorbs an old worker's copy.
 */
describe('Jobs left under the keys of the old layout at an upgrade', () => {
  const consumers = ['ledger.apply-entry', 'audit.note-entry', 'audit.note-applied'];
  const REDELIVER_AFTER_MS = 4_000;
  let redis: RedisServer;
  let database: TestDatabase;
  let app: TestApp | undefined;

  beforeAll(async () => {
    redis = await RedisServer.start();
    database = await TestDatabase.create();
  });
  afterAll(async () => {
    await app?.stop();
    await database.drop();
    await redis.stop();
  });

  it('when the relay pushed under the old keys and the new app starts, then each message takes effect once per consumer after the redelivery age', async () => {
    // The old version's relay: published, its jobs then moved where the old layout kept them.
    const relayOnly = await TestApp.start({
      imports: [LedgerFixtureModule],
      database,
      env: { REDIS_URL: redis.url, APP_ROLES: 'api,relay', OUTBOX_REDELIVER_AFTER_MS: '600000' },
    });
    const prefix = relayOnly.queuePrefix;
    const entryIds = Array.from({ length: 10 }, () => randomUUID());
    for (const entryId of entryIds) await relayOnly.get(Ledger).record(entryId, 1);
    await eventually(async () => {
      const [row] = await database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox.messages WHERE published_at IS NULL`,
      );
      expect(row.n).toBe(0);
    });
    await relayOnly.stop();
    const moved = await toOldLayout(redis.url, prefix, ['ledger', 'audit']);
    // The deliveries to ledger.apply-entry and audit.note-entry (note-applied comes later), in batch jobs or alone.
    expect(moved).toBe(entryIds.length * 2);

    app = await TestApp.start({
      imports: [LedgerFixtureModule],
      database,
      queuePrefix: prefix,
      env: {
        REDIS_URL: redis.url,
        OUTBOX_REDELIVER_AFTER_MS: String(REDELIVER_AFTER_MS),
        OUTBOX_SWEEP_INTERVAL_MS: '200',
      },
    });

    await eventually(
      async () => expect(await effects(database, entryIds)).toHaveLength(entryIds.length * consumers.length),
      { timeoutMs: 30_000 },
    );
    // Nothing took effect before the sweep judged its message overdue: the old keys were not read.
    const [{ soonest }] = await database.query<{ soonest: number }>(
      `SELECT min(extract(epoch FROM e.at - m.published_at) * 1000)::float8 AS soonest
         FROM fixture.effects e JOIN outbox.messages m
           ON m.type = $2 AND m.payload->>'entryId' = e.entry_id::text
        WHERE e.entry_id = ANY($1::uuid[]) AND e.consumer IN ('ledger.apply-entry', 'audit.note-entry')`,
      [entryIds, EntryRecorded.type],
    );
    expect(soonest).toBeGreaterThanOrEqual(REDELIVER_AFTER_MS);
    await quiet(app, { redisUrl: redis.url, stableForMs: REDELIVER_AFTER_MS + 400 });
    const counts = await effects(database, entryIds);
    expect(counts).toHaveLength(entryIds.length * consumers.length);
    expect(counts.filter((row) => row.n !== 1)).toEqual([]);
    // The old keys still hold their jobs' deliveries: the operator deletes them (docs/scaling-redis.md).
    expect(await deliveriesWaitingUnder(redis.url, `{${prefix}}`, 'ledger')).toBe(entryIds.length);
  });
});

const effects = (database: TestDatabase, entryIds: string[]) =>
  database.query<{ consumer: string; entry_id: string; n: number }>(
    `SELECT consumer, entry_id, count(*)::int AS n FROM fixture.effects
      WHERE entry_id = ANY($1::uuid[]) GROUP BY consumer, entry_id`,
    [entryIds],
  );

/** How many deliveries a job holds: a batch job several, a job of one delivery one. */
const deliveriesIn = (job: Job): number => {
  const data = job.data as OutboxJobData;
  return 'deliveries' in data ? data.deliveries.length : 1;
};

/** Moves each queue's waiting jobs from `{<prefix>:<queue>}` to `{<prefix>}`, the old derived layout; returns the deliveries they hold. */
async function toOldLayout(url: string, prefix: string, names: string[]): Promise<number> {
  const connection = new IORedis(url, { maxRetriesPerRequest: null });
  let moved = 0;
  try {
    for (const name of names) {
      const current = new Queue(name, { connection, prefix: queuePrefixOf(prefix, name) });
      const old = new Queue(name, { connection, prefix: `{${prefix}}` });
      const jobs = await current.getJobs(['waiting', 'prioritized', 'delayed']);
      await old.addBulk(jobs.map((job) => ({ name: job.name, data: job.data as object, opts: { jobId: job.id } })));
      await current.obliterate({ force: true });
      moved += jobs.reduce((sum, job) => sum + deliveriesIn(job), 0);
      await Promise.all([current.close(), old.close()]);
    }
  } finally {
    connection.disconnect();
  }
  return moved;
}

async function deliveriesWaitingUnder(url: string, prefix: string, name: string): Promise<number> {
  const connection = new IORedis(url, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix });
  try {
    return (await queue.getWaiting()).reduce((sum, job) => sum + deliveriesIn(job), 0);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}
