import { TransactionHost } from '@nestjs-cls/transactional';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../../src/infra/faults/faults';
import { OutboxPublisher } from '../../../src/infra/outbox';
import { jobIdOf, OutboxQueues } from '../../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../../src/infra/outbox/outbox.relay';
import { eventually } from '../../support/eventually';
import { TestApp } from '../../support/test-app';
import { TestDatabase } from '../../support/test-database';
import { EXERCISE_ENV } from '../support/exercise-app';
import { implementation, narrate } from '../support/track';
import { PerConsumerDedupModule } from './consumers';
import { AWARD_POINTS, OrderPlaced, type PerConsumerDedupAnswer, schema, SEND_RECEIPT } from './exercise';

const answer = implementation<PerConsumerDedupAnswer>(__dirname);

/**
 * Exercise 04: per-consumer dedup. One order, two consumers, a real duplicate: the relay pushes
 * the order to both, dies before marking it published, and pushes it again once the first
 * deliveries are done. Each consumer must do its part exactly once. The relay runs only when
 * this spec calls it, so that it dies exactly there.
 */
describe('Exercise 04: per-consumer dedup', () => {
  let database: TestDatabase;
  let app: TestApp;
  const relay = () => app.get(OutboxRelay).relayBatch();
  const placeOrder = (orderId: string, totalCents: number) =>
    app
      .get(TransactionHost)
      .withTransaction(() =>
        app.get(OutboxPublisher).publish(OrderPlaced, { orderId, totalCents }, { aggregateId: orderId }),
      );
  const count = async (table: 'points' | 'receipts', orderId: string) =>
    (
      await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ex04.${table} WHERE order_id = $1`, [orderId])
    )[0].n;
  /** Both consumers' jobs for the message have left Redis: handled, or given up on. */
  const settled = (messageId: string) =>
    eventually(
      async () => {
        for (const consumer of [AWARD_POINTS, SEND_RECEIPT]) {
          const queue = app.get(OutboxQueues).queue(consumer.split('.')[0]);
          expect(await queue.getJob(jobIdOf(messageId, consumer))).toBeUndefined();
        }
      },
      { what: `both consumers to be done with message ${messageId}` },
    );

  beforeAll(async () => {
    database = await TestDatabase.create();
    await database.query(schema);
    await database.query(answer.schema);
    app = await TestApp.start({
      database,
      imports: [PerConsumerDedupModule.with(answer.ProcessedMessages)],
      env: { ...EXERCISE_ENV, APP_ROLES: 'api,worker' },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  it('when the relay dies between push and mark, then loyalty awards the points once and mailing sends the receipt once', async () => {
    const orderId = randomUUID();
    const messageId = await placeOrder(orderId, 4_250);
    narrate(
      `the shop placed order ${orderId.slice(0, 8)} (42.50): one message, for ${AWARD_POINTS} and ${SEND_RECEIPT}`,
    );

    app.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);
    await expect(relay()).rejects.toThrow('Injected fault at relay.after-push');
    narrate('FAULT: the relay pushed the order to both consumers, then died before marking it published');
    await settled(messageId);
    narrate(
      `first delivery done: ${await count('points', orderId)} points row(s), ${await count('receipts', orderId)} receipt(s)`,
    );

    await relay();
    narrate('the relay runs again: the message is still unpublished, so both consumers get it a second time');
    await settled(messageId);

    const points = await count('points', orderId);
    const receipts = await count('receipts', orderId);
    const deadLetters = await database.query<{ consumer: string; error: string }>(
      `SELECT consumer, error FROM outbox.dead_letters WHERE message_id = $1`,
      [messageId],
    );
    narrate(
      `after the duplicate: ${points} points row(s), ${receipts} receipt(s), ${deadLetters.length} dead letter(s)`,
    );

    const broken = [
      ...(points === 0
        ? [`${AWARD_POINTS} never awarded the points for the order, though the order reached it twice`]
        : []),
      ...(points > 1 ? [`${AWARD_POINTS} awarded the points for one order ${points} times`] : []),
      ...(receipts === 0
        ? [`${SEND_RECEIPT} never sent the receipt for the order, though the order reached it twice`]
        : []),
      ...(receipts > 1 ? [`${SEND_RECEIPT} sent the receipt for one order ${receipts} times`] : []),
      ...deadLetters.map(({ consumer, error }) => `${consumer} gave up on a delivery of the order: ${error}`),
    ];
    if (broken.length > 0) {
      throw new Error(`${broken.join('; ')} (each consumer must do its part exactly once, duplicates included)`);
    }
  });
});
