import { randomUUID } from 'node:crypto';
import type { Delivery } from '../../../src/infra/outbox/message';
import type { MessageHandler } from '../../../src/infra/outbox/consuming/subscriptions';
import { eventually } from '../../support/eventually';
import { type EntryPayload, TransportRig } from '../../support/transport-rig';

const BACKOFF_MS = 200;

/**
 * The consumer's workers, started as the app starts them, on a batch job that the relay pushed:
 * a failing delivery goes on alone, with its own attempts and a backoff that doubles, while its
 * batch-mates commit once; after its last attempt a dead letter keeps a copy of its message.
 */
describe('A failing delivery in a batch', () => {
  let rig: TransportRig;
  const calls: Array<{ entryId: string; attempt: number; at: number }> = [];
  const applying: MessageHandler = async (payload, delivery: Delivery) => {
    const { entryId, amountCents } = payload as EntryPayload;
    calls.push({ entryId, attempt: delivery.attempt, at: Date.now() });
    if (amountCents === 13) throw new Error('thirteen is refused');
    await rig.noteEffect('unit.apply-entry', entryId);
  };

  beforeAll(async () => {
    rig = await TransportRig.start({ outbox: { attempts: 3, backoffMs: BACKOFF_MS } });
    await rig.consume({ consumer: 'unit.apply-entry' }, applying);
  });
  afterAll(() => rig?.stop());

  it('when one delivery of a batch fails, then its mates commit once, and it alone spends its attempts with a doubling backoff and is dead-lettered with its message', async () => {
    const entries = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const amounts = [1, 2, 13, 4];
    const ids = await rig.publish(...entries.map((entryId, n) => ({ payload: { entryId, amountCents: amounts[n] } })));
    const [poison, poisonEntry] = [ids[2], entries[2]];
    expect(await rig.relay.relayBatch()).toBe(4);
    const jobs = await rig.queues.queue('unit').getJobs(['waiting']);
    expect(jobs.map((job) => job.name)).toEqual(['4 deliveries: unit.entry-noted.v1']);

    rig.startConsuming();

    const deadLetter = await eventually(
      async () => {
        const [row] = await rig.query<{ attempts: number; error: string; message: Record<string, unknown> }>(
          `SELECT attempts, error, message FROM outbox.dead_letters WHERE message_id = $1 AND consumer = 'unit.apply-entry'`,
          [poison],
        );
        expect(row).toBeDefined();
        return row;
      },
      { timeoutMs: 20_000, what: 'the failing delivery to be dead-lettered' },
    );
    expect(deadLetter).toMatchObject({
      attempts: 3,
      error: 'thirteen is refused',
      message: {
        type: 'unit.entry-noted.v1',
        aggregateId: poisonEntry,
        payload: { entryId: poisonEntry, amountCents: 13 },
      },
    });
    const attempts = (id: string) =>
      rig.query<{ attempt: number; outcome: string }>(
        `SELECT attempt, outcome FROM outbox.delivery_attempts WHERE message_id = $1 ORDER BY id`,
        [id],
      );
    expect(await attempts(poison)).toEqual([
      { attempt: 1, outcome: 'failed' },
      { attempt: 2, outcome: 'failed' },
      { attempt: 3, outcome: 'dead' },
    ]);
    // Its attempts came after their backoff: the first retry after BACKOFF_MS, the second after twice that.
    const runsOf = (attempt: number) =>
      calls.filter((call) => call.entryId === poisonEntry && call.attempt === attempt);
    const gap = (attempt: number) => runsOf(attempt + 1)[0].at - runsOf(attempt).at(-1)!.at;
    expect(gap(1)).toBeGreaterThanOrEqual(BACKOFF_MS);
    expect(gap(2)).toBeGreaterThanOrEqual(2 * BACKOFF_MS);
    expect(runsOf(4)).toEqual([]);

    for (const [n, id] of ids.entries()) {
      if (id === poison) continue;
      // Committed on the first attempt, once: none of theirs failed, none came again.
      expect(await attempts(id)).toEqual([]);
      expect(await rig.query(`SELECT attempt FROM outbox.inbox WHERE message_id = $1`, [id])).toEqual([{ attempt: 1 }]);
      expect(await rig.query(`SELECT count(*)::int AS n FROM unit.effects WHERE entry_id = $1`, [entries[n]])).toEqual([
        { n: 1 },
      ]);
    }
    expect(await rig.query(`SELECT 1 FROM unit.effects WHERE entry_id = $1`, [poisonEntry])).toEqual([]);
  }, 30_000);
});
