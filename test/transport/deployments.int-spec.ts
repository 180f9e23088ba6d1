import { randomUUID } from 'node:crypto';
import { OutboxQueues, jobIdOf } from '../../src/infra/outbox/outbox.queues';
import { eventually } from '../support/eventually';
import { EntryRecorded, Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { RedisServer } from '../support/redis-server';
import { logs, TestApp } from '../support/test-app';

/**
 * Two deployments (two databases) on one Redis, with the default settings: no QUEUE_PREFIX. A
 * Redis of the test's own, since the default prefix is not a test run's.
 */
describe('Two deployments on one Redis', () => {
  let redis: RedisServer;
  const apps: TestApp[] = [];
  const consumers = ['ledger.apply-entry', 'audit.note-entry', 'audit.note-applied'];

  const effects = (app: TestApp, entryIds: string[]) =>
    app.database.query<{ consumer: string; entry_id: string }>(
      `SELECT consumer, entry_id FROM fixture.effects WHERE entry_id = ANY($1::uuid[])`,
      [entryIds],
    );

  beforeAll(async () => {
    redis = await RedisServer.start();
    for (let i = 0; i < 2; i++) {
      apps.push(
        await TestApp.start({
          imports: [LedgerFixtureModule],
          env: { REDIS_URL: redis.url, QUEUE_PREFIX: undefined, OUTBOX_RELAY_INTERVAL_MS: '50' },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await redis.stop();
  });

  it('when two apps with their own databases share a Redis with the default prefix, then each runs only its own jobs', async () => {
    const entries = apps.map(() => Array.from({ length: 20 }, () => randomUUID()));

    await Promise.all(
      apps.map((app, i) => Promise.all(entries[i].map((entryId) => app.get(Ledger).record(entryId, 1)))),
    );

    for (const [i, app] of apps.entries()) {
      await eventually(async () => expect(await effects(app, entries[i])).toHaveLength(20 * consumers.length), {
        timeoutMs: 10_000,
      });
      expect(await effects(app, entries[1 - i])).toEqual([]);
    }
    const prefixes = apps.map((app) => app.get(OutboxQueues).prefix);
    expect(prefixes[0]).not.toEqual(prefixes[1]);
    // Each queue's keys carry a hash tag of their own: one slot per queue and deployment on a Redis Cluster.
    const ledgerKeys = await redis.command((client) => client.keys(`{${prefixes[0]}:ledger}:ledger:*`));
    expect(ledgerKeys).not.toEqual([]);
    expect(await redis.command((client) => client.keys(`{${prefixes[0]}:audit}:audit:*`))).not.toEqual([]);
  });

  it('when a worker receives a job whose message is not in its outbox, then it refuses it loudly and leaves it for other deployments a while', async () => {
    const [app] = apps;
    const id = randomUUID();
    const entryId = randomUUID();
    const jobId = jobIdOf(id, 'ledger.apply-entry');
    const before = await metricValue(app, 'outbox_foreign_jobs_total', { queue: 'ledger' });

    await app.get(OutboxQueues).push([
      {
        queue: 'ledger',
        jobId,
        name: EntryRecorded.type,
        job: { id, consumer: 'ledger.apply-entry' },
      },
    ]);

    await eventually(async () =>
      expect(await metricValue(app, 'outbox_foreign_jobs_total', { queue: 'ledger' })).toBeGreaterThan(before),
    );
    expect(logs.lines.some((line) => String(line.msg).includes(`${id} is not in this deployment's outbox`))).toBe(true);
    expect(await app.get(OutboxQueues).queue('ledger').getJob(jobId)).toBeDefined();
    expect(await effects(app, [entryId])).toEqual([]);
    expect(await app.database.query(`SELECT 1 FROM outbox.inbox WHERE message_id = $1`, [id])).toEqual([]);
  });
});
