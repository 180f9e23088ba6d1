import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import { IsUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { Consumer, defineEvent, type Delivery, OutboxPublisher } from '../../src/infra/outbox';
import { OutboxQueues } from '../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../src/infra/outbox/relaying/outbox.relay';
import { eventually } from '../support/eventually';
import { stillQueued } from '../support/queued-deliveries';
import { TestApp } from '../support/test-app';
import { THROUGH_THE_QUEUES } from '../support/test-env';

class ParcelShippedPayload {
  @IsUUID() parcelId!: string;
}
const ParcelShipped = defineEvent('depot.parcel-shipped.v1', ParcelShippedPayload);

/** Every call each handler got, by consumer: what reaches a handler, duplicates included. */
const calls: Array<{ consumer: string; parcelId: string; messageId: string; inTransaction: boolean }> = [];

@Injectable()
class Depot {
  constructor(private readonly txHost: TransactionHost) {}

  @OnEvent(ParcelShipped.type)
  @Consumer('depot.notify-carrier')
  async notifyCarrier(payload: ParcelShippedPayload, delivery: Delivery): Promise<void> {
    calls.push({
      consumer: delivery.consumer,
      parcelId: payload.parcelId,
      messageId: delivery.id,
      inTransaction: this.txHost.isTransactionActive(),
    });
  }

  @OnEvent(ParcelShipped.type)
  @Consumer('depot.count-parcels', { dedup: 'handler' })
  async countParcels(payload: ParcelShippedPayload, delivery: Delivery): Promise<void> {
    calls.push({
      consumer: delivery.consumer,
      parcelId: payload.parcelId,
      messageId: delivery.id,
      inTransaction: this.txHost.isTransactionActive(),
    });
  }
}

@Module({ providers: [Depot] })
class DepotModule {}

/**
 * Handlers in the lesson's form (`@OnEvent` + `@Consumer`) over the real outbox, relay, queue and
 * inbox. The relay runs only when a test calls it.
 */
describe('Durable handlers in the lesson form', () => {
  let app: TestApp;
  const callsOf = (consumer: string, parcelId: string) =>
    calls.filter((call) => call.consumer === consumer && call.parcelId === parcelId);
  const ship = (parcelId: string) =>
    app
      .get(TransactionHost)
      .withTransaction(() => app.get(OutboxPublisher).publish(ParcelShipped, { parcelId }, { aggregateId: parcelId }));
  const relay = () => app.get(OutboxRelay).relayBatch();

  beforeAll(async () => {
    app = await TestApp.start({ imports: [DepotModule], env: { ...THROUGH_THE_QUEUES, APP_ROLES: 'api,worker' } });
    await app.ready();
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  it('when an event is published through the outbox, then each @OnEvent handler gets it once, in the inbox transaction', async () => {
    const parcelId = randomUUID();
    const messageId = await ship(parcelId);

    await relay();

    await eventually(() => {
      expect(callsOf('depot.notify-carrier', parcelId)).toEqual([
        { consumer: 'depot.notify-carrier', parcelId, messageId, inTransaction: true },
      ]);
      expect(callsOf('depot.count-parcels', parcelId)).toHaveLength(1);
    });
    const receipts = await app.database.query(
      `SELECT consumer FROM outbox.inbox WHERE message_id = $1 ORDER BY consumer`,
      [messageId],
    );
    expect(receipts).toEqual([{ consumer: 'depot.count-parcels' }, { consumer: 'depot.notify-carrier' }]);
  });

  it("when the relay dies between push and mark, then a dedup 'handler' consumer gets both copies and a dedup 'transport' one only the first", async () => {
    const parcelId = randomUUID();
    const messageId = await ship(parcelId);
    app.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);

    await expect(relay()).rejects.toThrow('Injected fault at relay.after-push');
    // The first copies are handled and gone from Redis before the relay pushes again.
    const queue = app.get(OutboxQueues).queue('depot');
    await eventually(async () => {
      expect(callsOf('depot.count-parcels', parcelId)).toHaveLength(1);
      expect(await stillQueued(queue, messageId, 'depot.count-parcels')).toBe(false);
      expect(await stillQueued(queue, messageId, 'depot.notify-carrier')).toBe(false);
    });
    await relay();

    await eventually(async () => {
      const duplicates = await app.database.query(
        `SELECT consumer FROM outbox.delivery_attempts WHERE message_id = $1 AND outcome = 'duplicate' ORDER BY consumer`,
        [messageId],
      );
      expect(duplicates).toEqual([{ consumer: 'depot.count-parcels' }, { consumer: 'depot.notify-carrier' }]);
    });
    expect(callsOf('depot.count-parcels', parcelId)).toHaveLength(2);
    expect(callsOf('depot.notify-carrier', parcelId)).toHaveLength(1);
    // The first delivery is still the receipt: one inbox row each.
    const receipts = await app.database.query(`SELECT consumer FROM outbox.inbox WHERE message_id = $1`, [messageId]);
    expect(receipts).toHaveLength(2);
  });
});
