import { randomUUID } from 'node:crypto';
import { Hooks } from '../../../src/infra/hooks/hooks';
import type { OutboxJobData } from '../../../src/infra/outbox/outbox.queues';
import type { MessageHandler } from '../../../src/infra/outbox/consuming/subscriptions';
import { TransportRig } from '../../support/transport-rig';

/** The relay's hook after a push, before its transaction marks the batch published: fails when told to. */
class DyingAfterPush extends Hooks {
  dieOnce = false;

  override pushed(): Promise<void> {
    if (!this.dieOnce) return Promise.resolve();
    this.dieOnce = false;
    return Promise.reject(new Error('the relay died between push and mark'));
  }
}

const nothing: MessageHandler = async () => undefined;

/** What a queue holds, waiting: each job's deliveries as `message consumer`, of these messages only when given. */
async function waiting(rig: TransportRig, queue: string, of?: string[]): Promise<string[]> {
  const jobs = await rig.queues.queue(queue).getJobs(['waiting', 'delayed']);
  return jobs
    .flatMap((job) => {
      const data = job.data as OutboxJobData;
      return 'deliveries' in data ? data.deliveries : [data];
    })
    .filter(({ id }) => !of || of.includes(id))
    .map(({ id, consumer }) => `${id} ${consumer}`)
    .sort();
}

const published = (rig: TransportRig, ids: string[]) =>
  rig.query<{ id: string; published: boolean; delivered: boolean }>(
    `SELECT id, published_at IS NOT NULL AS published, delivered_at IS NOT NULL AS delivered
       FROM outbox.messages WHERE id = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], id)`,
    [ids],
  );

/**
 * The relay and the redelivery sweep, called by the test (no timer runs them), over the queues of
 * two consumers, each of its own module: what they claim, push and mark.
 */
describe('The relay', () => {
  let rig: TransportRig;
  const hooks = new DyingAfterPush();

  beforeAll(async () => {
    rig = await TransportRig.start({ hooks, outbox: { redeliverAfterMs: 0 } });
    await rig.consume({ consumer: 'unit.apply-entry' }, nothing);
    await rig.consume({ consumer: 'audit.note-entry' }, nothing);
  });
  afterEach(async () => {
    hooks.dieOnce = false;
    // What a worker would have taken: each test reads what it pushed.
    for (const queue of ['unit', 'audit']) await rig.queues.queue(queue).obliterate({ force: true });
  });
  afterAll(() => rig?.stop());

  it('when messages are committed, then the relay claims them, pushes their deliveries to each consumer’s queue, and marks them published once', async () => {
    const ids = await rig.publish(
      { payload: { entryId: randomUUID(), amountCents: 1 } },
      { payload: { entryId: randomUUID(), amountCents: 2 } },
    );

    expect(await rig.relay.relayBatch()).toBe(2);

    expect(await published(rig, ids)).toEqual(ids.map((id) => ({ id, published: true, delivered: false })));
    expect(await waiting(rig, 'unit')).toEqual(ids.map((id) => `${id} unit.apply-entry`).sort());
    expect(await waiting(rig, 'audit')).toEqual(ids.map((id) => `${id} audit.note-entry`).sort());
    // Claimed and marked: a second pass finds nothing.
    expect(await rig.relay.relayBatch()).toBe(0);
  });

  it('when the relay dies between push and mark, then the batch stays unpublished, and the next pass sends it again', async () => {
    const ids = await rig.publish({ payload: { entryId: randomUUID(), amountCents: 3 } });
    hooks.dieOnce = true;

    await expect(rig.relay.relayBatch()).rejects.toThrow('between push and mark');

    expect(await published(rig, ids)).toEqual([{ id: ids[0], published: false, delivered: false }]);
    // The push happened; then its jobs were taken and done (and so removed), as a worker would.
    expect(await waiting(rig, 'unit')).toEqual([`${ids[0]} unit.apply-entry`]);
    for (const queue of ['unit', 'audit']) await rig.queues.queue(queue).obliterate({ force: true });

    expect(await rig.relay.relayBatch()).toBe(1);

    expect(await published(rig, ids)).toEqual([{ id: ids[0], published: true, delivered: false }]);
    expect(await waiting(rig, 'unit')).toEqual([`${ids[0]} unit.apply-entry`]);
    expect(await waiting(rig, 'audit')).toEqual([`${ids[0]} audit.note-entry`]);
  });

  it('when a published message lacks one consumer’s inbox row, then the sweep pushes it again to that consumer alone, and marks delivered the one that lacks none', async () => {
    const ids = await rig.publish(
      { payload: { entryId: randomUUID(), amountCents: 4 } },
      { payload: { entryId: randomUUID(), amountCents: 5 } },
    );
    expect(await rig.relay.relayBatch()).toBe(2);
    // Lost from Redis before any worker took them.
    for (const queue of ['unit', 'audit']) await rig.queues.queue(queue).obliterate({ force: true });
    const [complete, lacking] = ids;
    const handledBy = (id: string, consumer: string) =>
      rig.inbox.handle({
        id,
        consumer,
        attempt: 1,
        alone: true,
        subscription: { ...rig.subscriptions.consumer(consumer)!, handle: nothing },
      });
    expect(await handledBy(complete, 'unit.apply-entry')).toBe('ok');
    expect(await handledBy(complete, 'audit.note-entry')).toBe('ok');
    expect(await handledBy(lacking, 'unit.apply-entry')).toBe('ok');

    await rig.sweeper.sweepAll();

    // The earlier tests' messages lack their inbox rows too: only this test's are looked at.
    expect(await waiting(rig, 'unit', ids)).toEqual([]);
    expect(await waiting(rig, 'audit', ids)).toEqual([`${lacking} audit.note-entry`]);
    expect(await published(rig, ids)).toEqual([
      { id: complete, published: true, delivered: true },
      { id: lacking, published: true, delivered: false },
    ]);
  });
});
