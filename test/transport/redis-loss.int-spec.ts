import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { quiet } from '../support/quiet';
import { fixtureSwitches, Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { RedisServer } from '../support/redis-server';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/** Redis carries the work but is not its durable copy: losing it must not lose a message. */
describe('Delivery when Redis forgets', () => {
  let redis: RedisServer;
  let app: TestApp | undefined;
  const consumers = ['ledger.apply-entry', 'audit.note-entry', 'audit.note-applied'];

  /** (entry, consumer) pairs that took effect, with how many times each did. */
  const effectCounts = (entryIds: string[]) =>
    app!.database.query<{ consumer: string; entry_id: string; n: number }>(
      `SELECT consumer, entry_id, count(*)::int AS n FROM fixture.effects
        WHERE entry_id = ANY($1::uuid[]) GROUP BY consumer, entry_id`,
      [entryIds],
    );
  const expectExactlyOnce = async (entryIds: string[]) => {
    await eventually(
      async () => expect(await effectCounts(entryIds)).toHaveLength(entryIds.length * consumers.length),
      { timeoutMs: 30_000 },
    );
    // Once every pair took effect, wait until nothing more can arrive, then count again.
    await quiet(app!, { redisUrl: redis.url });
    const counts = await effectCounts(entryIds);
    expect(counts).toHaveLength(entryIds.length * consumers.length);
    expect(counts.filter((row) => row.n !== 1)).toEqual([]);
  };

  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterEach(async () => {
    fixtureSwitches.auditDelayMs = 0;
    await app?.stop();
    app = undefined;
  });
  afterAll(() => redis.stop());

  it('when Redis is flushed after relaying and before consuming, then every message still takes effect once per consumer', async () => {
    const database = await TestDatabase.create();
    const relayOnly = await TestApp.start({
      imports: [LedgerFixtureModule],
      database,
      env: {
        REDIS_URL: redis.url,
        APP_ROLES: 'api,relay',
        OUTBOX_REDELIVER_AFTER_MS: '300',
        OUTBOX_SWEEP_INTERVAL_MS: '200',
      },
    });
    const entryIds = Array.from({ length: 20 }, () => randomUUID());
    for (const entryId of entryIds) await relayOnly.get(Ledger).record(entryId, 1);
    await eventually(async () => {
      const [row] = await database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox.messages WHERE published_at IS NULL`,
      );
      expect(row.n).toBe(0);
    });

    await redis.flushAll();
    await relayOnly.stop();
    app = await TestApp.start({
      imports: [LedgerFixtureModule],
      database,
      queuePrefix: relayOnly.queuePrefix,
      env: { REDIS_URL: redis.url, OUTBOX_REDELIVER_AFTER_MS: '300', OUTBOX_SWEEP_INTERVAL_MS: '200' },
    });

    try {
      await expectExactlyOnce(entryIds);
    } finally {
      await app.stop();
      app = undefined;
      await database.drop();
    }
  });

  it('when Redis restarts empty in the middle of a stream, then every message still takes effect once per consumer', async () => {
    const streaming = await TestApp.start({
      imports: [LedgerFixtureModule],
      env: {
        REDIS_URL: redis.url,
        OUTBOX_RELAY_INTERVAL_MS: '100',
        OUTBOX_REDELIVER_AFTER_MS: '500',
        OUTBOX_SWEEP_INTERVAL_MS: '250',
      },
    });
    app = streaming;
    fixtureSwitches.auditDelayMs = 20; // keeps work in flight when Redis goes
    const entryIds = Array.from({ length: 60 }, () => randomUUID());

    for (const [index, entryId] of entryIds.entries()) {
      await streaming.get(Ledger).record(entryId, 1);
      if (index === 20) await redis.restart();
    }

    await expectExactlyOnce(entryIds);
  });
});
