import { randomUUID } from 'node:crypto';
import type { InboxConsumer, InboxDelivery } from '../../../src/infra/outbox/consuming/inbox';
import type { MessageHandler } from '../../../src/infra/outbox/consuming/subscriptions';
import { EntryNoted, TransportRig } from '../../support/transport-rig';

/**
 * The inbox, handed deliveries by the test as a worker hands them: a second copy turned away per
 * (message, consumer), a failing handler's writes and inbox row rolled back together, a batch's
 * deliveries run in the order of their aggregates.
 */
describe('The inbox', () => {
  let rig: TransportRig;

  beforeAll(async () => {
    rig = await TransportRig.start();
  });
  afterAll(() => rig?.stop());

  const consumerOf = (name: string, handle: MessageHandler): InboxConsumer => ({
    queue: 'unit',
    exclusive: false,
    dedup: 'transport',
    contracts: [EntryNoted],
    where: {},
    handle,
  });
  const deliveryOf = (id: string, consumer: string, handle: MessageHandler, attempt = 1): InboxDelivery => ({
    id,
    consumer,
    attempt,
    subscription: consumerOf(consumer, handle),
  });
  const noting =
    (consumer: string): MessageHandler =>
    (payload) =>
      rig.noteEffect(consumer, (payload as { entryId: string }).entryId);
  const effects = async (entryId: string) =>
    (
      await rig.query<{ consumer: string; n: number }>(
        `SELECT consumer, count(*)::int AS n FROM unit.effects WHERE entry_id = $1 GROUP BY consumer ORDER BY consumer`,
        [entryId],
      )
    ).map(({ consumer, n }) => `${consumer} ${n}`);
  const inboxRows = (id: string) =>
    rig.query<{ consumer: string }>(`SELECT consumer FROM outbox.inbox WHERE message_id = $1 ORDER BY consumer`, [id]);

  it('when a message reaches a consumer twice, then the second copy is turned away, and another consumer of it still takes it', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 1 } });

    const first = await rig.inbox.handle(deliveryOf(id, 'unit.apply-entry', noting('unit.apply-entry')));
    const again = await rig.inbox.handle(deliveryOf(id, 'unit.apply-entry', noting('unit.apply-entry'), 2));
    const other = await rig.inbox.handle(deliveryOf(id, 'unit.audit-entry', noting('unit.audit-entry')));

    expect([first, again, other]).toEqual(['ok', 'duplicate', 'ok']);
    expect(await effects(entryId)).toEqual(['unit.apply-entry 1', 'unit.audit-entry 1']);
    expect(await inboxRows(id)).toEqual([{ consumer: 'unit.apply-entry' }, { consumer: 'unit.audit-entry' }]);
  });

  it('when a handler fails after writing, then its writes and its inbox row roll back, and the next delivery takes effect once', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 2 } });
    const failing: MessageHandler = async (payload, delivery) => {
      await noting('unit.apply-entry')(payload, delivery);
      throw new Error('the handler failed after its write');
    };

    await expect(rig.inbox.handle(deliveryOf(id, 'unit.apply-entry', failing))).rejects.toThrow('after its write');
    expect(await effects(entryId)).toEqual([]);
    expect(await inboxRows(id)).toEqual([]);

    await expect(rig.inbox.handle(deliveryOf(id, 'unit.apply-entry', noting('unit.apply-entry'), 2))).resolves.toBe(
      'ok',
    );
    expect(await effects(entryId)).toEqual(['unit.apply-entry 1']);
    expect(await inboxRows(id)).toEqual([{ consumer: 'unit.apply-entry' }]);
  });

  it('when a consumer dedups on its own, then a second copy reaches its handler too, and the inbox row is the first one’s receipt', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 4 } });
    const own = (attempt: number): InboxDelivery => ({
      ...deliveryOf(id, 'unit.count-entry', noting('unit.count-entry'), attempt),
      subscription: { ...consumerOf('unit.count-entry', noting('unit.count-entry')), dedup: 'handler' },
    });

    const outcomes = [await rig.inbox.handle(own(1)), await rig.inbox.handle(own(2))];

    expect(outcomes).toEqual(['ok', 'duplicate']);
    expect(await effects(entryId)).toEqual(['unit.count-entry 2']);
    expect(await rig.query(`SELECT attempt FROM outbox.inbox WHERE message_id = $1`, [id])).toEqual([{ attempt: 1 }]);
  });

  it('when a delivery is dead-lettered, then a copy pushed again is not handled, and leaves no inbox row', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 5 } });
    await rig.deliveryLog.deadLetter({ id, consumer: 'unit.apply-entry' }, 5, 'it kept failing');

    const outcome = await rig.inbox.handle(deliveryOf(id, 'unit.apply-entry', noting('unit.apply-entry'), 6));

    expect(outcome).toBe('duplicate');
    expect(await effects(entryId)).toEqual([]);
    expect(await inboxRows(id)).toEqual([]);
  });

  it('when a batch holds several aggregates, then their deliveries run in the order of their aggregates, and a copy in the same batch is a duplicate', async () => {
    // Published in the reverse order of their aggregates' ids.
    const aggregates = [randomUUID(), randomUUID(), randomUUID()].sort().reverse();
    const ids = await rig.publish(
      ...aggregates.map((aggregateId) => ({ payload: { entryId: randomUUID(), amountCents: 3 }, aggregateId })),
    );
    const ran: string[] = [];
    const recording: MessageHandler = async (_payload, delivery) => {
      ran.push(delivery.aggregateId);
    };
    const items = ids.map((id) => deliveryOf(id, 'unit.apply-entry', recording));

    // In one turn of the event loop: one batch, one transaction.
    const outcomes = await Promise.all([...items, items[2]].map((item) => rig.inbox.handle(item)));

    expect(ran).toEqual([...aggregates].reverse());
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'duplicate']);
  });
});
