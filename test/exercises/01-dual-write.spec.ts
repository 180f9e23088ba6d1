import { TransactionHost } from '@nestjs-cls/transactional';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { EntryRecorded, Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { TestApp } from '../support/test-app';
import { TEST_REDIS_URL } from '../support/test-env';

/**
 * Exercise 01: the dual write.
 *
 * Saving a row and then publishing an event writes to two systems, and no transaction covers
 * both. A crash between the two leaves a row that nobody hears about. The transactional outbox
 * writes the event as a row in the same transaction: both exist, or neither.
 */
describe('Exercise 01: the dual write', () => {
  let app: TestApp;
  let redis: IORedis;
  let naiveQueue: Queue;
  let naiveWorker: Worker;
  const effectsOf = async (entryId: string) =>
    (
      await app.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM fixture.effects WHERE entry_id = $1 AND consumer = 'ledger.apply-entry'`,
        [entryId],
      )
    )[0].n;
  const entryExists = async (entryId: string) =>
    (await app.database.query(`SELECT 1 FROM fixture.entries WHERE id = $1`, [entryId])).length === 1;
  const crash = () => {
    throw new Error('the process died here');
  };

  beforeAll(async () => {
    app = await TestApp.start({ imports: [LedgerFixtureModule], env: { OUTBOX_RELAY_INTERVAL_MS: '100' } });
    // The naive way has a queue and a consumer of its own: the app's workers refuse a job whose
    // message is not in their outbox.
    redis = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    naiveQueue = new Queue('ledger', { connection: redis, prefix: `${app.queuePrefix}-naive` });
    naiveWorker = new Worker(
      'ledger',
      async (job) => {
        const { entryId } = job.data.payload as { entryId: string };
        await app.database.query(`INSERT INTO fixture.effects (consumer, entry_id) VALUES ('ledger.apply-entry', $1)`, [
          entryId,
        ]);
      },
      { connection: redis, prefix: `${app.queuePrefix}-naive` },
    );
  });
  afterAll(async () => {
    await naiveWorker.close();
    await naiveQueue.close();
    redis.disconnect();
    await app.stop();
  });

  /** The naive way: commit the row, then push the event to the queue yourself. */
  async function recordNaively(entryId: string, crashBeforePublishing: boolean): Promise<void> {
    await app.database.query(`INSERT INTO fixture.entries (id, amount_cents) VALUES ($1, 1)`, [entryId]);
    if (crashBeforePublishing) crash();
    const job = {
      id: randomUUID(),
      kind: 'event' as const,
      type: EntryRecorded.type,
      aggregateId: entryId,
      payload: { entryId, amountCents: 1 },
      correlationId: randomUUID(),
      causationId: null,
      headers: {},
      createdAt: new Date().toISOString(),
      consumer: 'ledger.apply-entry',
    };
    await naiveQueue.add(job.type, job, { jobId: job.id });
  }

  it('naive: when the process dies between the commit and the publish, then the row exists and nobody ever hears of it', async () => {
    const lost = randomUUID();
    await expect(recordNaively(lost, true)).rejects.toThrow('the process died here');

    // A later entry goes all the way through: the pipeline works, it simply never got the first.
    const later = randomUUID();
    await recordNaively(later, false);
    await eventually(async () => expect(await effectsOf(later)).toBe(1));

    expect(await entryExists(lost)).toBe(true);
    expect(await effectsOf(lost)).toBe(0);
  });

  it('outbox: when the process dies before the commit, then neither the row nor the event exists', async () => {
    const entryId = randomUUID();

    await expect(app.get(Ledger).record(entryId, 1, true)).rejects.toThrow();

    expect(await entryExists(entryId)).toBe(false);
    expect(await app.database.query(`SELECT 1 FROM outbox.messages WHERE aggregate_id = $1`, [entryId])).toEqual([]);
  });

  it('outbox: when the process dies right after the commit, then the event is still delivered', async () => {
    const entryId = randomUUID();
    const txHost = app.get(TransactionHost);

    // The commit happens; the code after it never runs. Nothing was pushed by this code: the relay does that.
    await expect(
      (async () => {
        await txHost.withTransaction(() => app.get(Ledger).record(entryId, 1));
        crash();
      })(),
    ).rejects.toThrow('the process died here');

    await eventually(async () => expect(await effectsOf(entryId)).toBe(1));
    expect(await entryExists(entryId)).toBe(true);
  });
});
