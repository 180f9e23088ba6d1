import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { jobIdOf, OutboxQueues } from '../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../src/infra/outbox/outbox.relay';
import { eventually } from '../support/eventually';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { TestApp } from '../support/test-app';
import { TEST_REDIS_URL } from '../support/test-env';

/**
 * Exercise 02: duplicate delivery.
 *
 * The outbox delivers at least once: if the relay dies after pushing a message and before
 * marking it pushed, it pushes it again. A consumer that does not remember what it handled
 * applies it twice. The inbox records (message, consumer) in the same transaction as the effect,
 * so the second delivery finds the record and does nothing.
 */
describe('Exercise 02: duplicate delivery', () => {
  let app: TestApp;
  let redis: IORedis;
  let naive: Worker;
  const naiveEffects = new Map<string, number>();

  beforeAll(async () => {
    // The relay only runs when a test calls it, so each push is deliberate.
    app = await TestApp.start({ imports: [LedgerFixtureModule], env: { APP_ROLES: 'api,worker' } });
    redis = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    // The naive consumer: listens on the same queue as ledger.apply-entry, and just applies.
    naive = new Worker(
      'ledger',
      async (job) => {
        const entryId = (job.data.payload as { entryId: string }).entryId;
        naiveEffects.set(entryId, (naiveEffects.get(entryId) ?? 0) + 1);
      },
      { connection: redis, prefix: `${app.queuePrefix}-naive` },
    );
  });
  afterAll(async () => {
    await naive.close();
    redis.disconnect();
    await app.stop();
  });

  /**
   * The relay pushes, dies before marking, and pushes the same message again on its next run,
   * after the first delivery was handled and its job left Redis.
   */
  async function relayTwice(entryId: string): Promise<void> {
    app.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);
    await expect(app.get(OutboxRelay).relayBatch()).rejects.toThrow('Injected fault');
    const [{ id }] = await app.database.query<{ id: string }>(
      `SELECT id FROM outbox.messages WHERE aggregate_id = $1`,
      [entryId],
    );
    const queue = app.get(OutboxQueues).queue('ledger');
    await eventually(async () => expect(await queue.getJob(jobIdOf(id, 'ledger.apply-entry'))).toBeUndefined());
    await app.get(OutboxRelay).relayBatch();
  }

  it('naive: when a message arrives twice, then a consumer without memory applies it twice', async () => {
    const entryId = randomUUID();
    const message = { id: randomUUID(), payload: { entryId, amountCents: 5 } };
    const queue = new Queue('ledger', { connection: redis, prefix: `${app.queuePrefix}-naive` });

    // What the relay does when it pushes, dies and pushes again (each run makes its own job).
    await queue.add('ledger.entry-recorded.v1', message, { jobId: `${message.id}-first-run` });
    await queue.add('ledger.entry-recorded.v1', message, { jobId: `${message.id}-second-run` });

    await eventually(() => expect(naiveEffects.get(entryId)).toBe(2));
    await queue.close();
  });

  it('inbox: when a message arrives twice, then it takes effect once and the second is recorded as a duplicate', async () => {
    const entryId = randomUUID();
    await app.get(Ledger).record(entryId, 5);

    await relayTwice(entryId);

    await eventually(async () => {
      const attempts = await app.database.query<{ outcome: string }>(
        `SELECT a.outcome FROM outbox.delivery_attempts a JOIN outbox.messages m ON m.id = a.message_id
          WHERE m.aggregate_id = $1 AND a.consumer = 'ledger.apply-entry'`,
        [entryId],
      );
      expect(attempts).toEqual([{ outcome: 'duplicate' }]);
    });
    const [{ n }] = await app.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM fixture.effects WHERE entry_id = $1 AND consumer = 'ledger.apply-entry'`,
      [entryId],
    );
    expect(n).toBe(1);
  });
});
