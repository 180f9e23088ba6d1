import { TransactionHost } from '@nestjs-cls/transactional';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../../src/infra/faults/faults';
import { OutboxPublisher } from '../../../src/infra/outbox';
import { OutboxQueues } from '../../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../../src/infra/outbox/relaying/outbox.relay';
import { eventually } from '../../support/eventually';
import { stillQueued } from '../../support/queued-deliveries';
import { TestApp } from '../../support/test-app';
import { TestDatabase } from '../../support/test-database';
import { EXERCISE_ENV } from '../support/exercise-app';
import { implementation, narrate } from '../support/track';
import { PerConsumerDedupModule } from './consumers';
import { AWARD_POINTS, OrderPlaced, type PerConsumerDedupAnswer, schema, SEND_RECEIPT } from './exercise';
import { THROUGH_THE_QUEUES } from '../../support/test-env';

const answer = implementation<PerConsumerDedupAnswer>(__dirname);

/**
 * Exercise 04: per-consumer dedup. Two orders, two consumers, a real duplicate: the relay pushes
 * both orders to both consumers, dies before marking them published; the app restarts (a new
 * app on the same database and queues, with new instances of every provider, the answer's
 * included), and the relay pushes them again. Before that, the database refuses the first commit
 * that holds a receipt, and that delivery is taken again. Each consumer must do its part exactly
 * once for each order. The relay runs only when this spec calls it, so that it dies exactly there.
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
          expect(await stillQueued(queue, messageId, consumer)).toBe(false);
        }
      },
      { what: `both consumers to be done with message ${messageId}` },
    );

  /** The app with the consumers and the answer's dedup, on the exercise's database (and queues, when given). */
  const start = async (dedup: PerConsumerDedupAnswer, queuePrefix?: string) => {
    const started = await TestApp.start({
      database,
      queuePrefix,
      imports: [PerConsumerDedupModule.with(dedup.ProcessedMessages)],
      env: { ...EXERCISE_ENV, ...THROUGH_THE_QUEUES, APP_ROLES: 'api,worker' },
    });
    await started.ready();
    return started;
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
    await database.query(schema);
    // The fault in the mail service: the first commit that holds a receipt is refused (a deferred
    // trigger raises at COMMIT, after every statement succeeded; a sequence, which no rollback
    // undoes, makes it once). The delivery fails and is taken again.
    await database.query(`
      CREATE SEQUENCE ex04.receipt_commits;
      CREATE FUNCTION ex04.refuse_first_receipt() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF nextval('ex04.receipt_commits') = 1 THEN
            RAISE EXCEPTION 'the mail service refused to commit the receipt of order %', NEW.order_id;
          END IF;
          RETURN NULL;
        END $$;
      CREATE CONSTRAINT TRIGGER refuse_first_receipt AFTER INSERT ON ex04.receipts
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ex04.refuse_first_receipt();
    `);
    await database.query(answer.schema);
    app = await start(answer);
  });
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  it('when the relay dies between push and mark, a commit is refused and the app restarts, then loyalty awards the points once and mailing sends the receipt once, for each of two orders', async () => {
    const orders = [
      { id: randomUUID(), cents: 4_250 },
      { id: randomUUID(), cents: 1_999 },
    ];
    const messages: string[] = [];
    for (const order of orders) messages.push(await placeOrder(order.id, order.cents));
    const short = (orderId: string) => orderId.slice(0, 8);
    narrate(
      `the shop placed orders ${orders.map((o) => short(o.id)).join(' and ')}: a message each, for ${AWARD_POINTS} and ${SEND_RECEIPT}`,
    );
    const tally = async () =>
      (
        await Promise.all(
          orders.map(
            async (o) =>
              `${short(o.id)}: ${await count('points', o.id)} points row(s), ${await count('receipts', o.id)} receipt(s)`,
          ),
        )
      ).join('; ');

    app.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);
    await expect(relay()).rejects.toThrow('Injected fault at relay.after-push');
    narrate('FAULT: the relay pushed both orders to both consumers, then died before marking them published');
    narrate('FAULT: the first commit of a receipt is refused by the database; that delivery is taken again');
    for (const messageId of messages) await settled(messageId);
    narrate(`first deliveries done: ${await tally()}`);

    const { queuePrefix } = app;
    await app.stop();
    app = await start(answer, queuePrefix);
    narrate('the app restarted: what it kept in memory is gone; the database and the queues are as they were');

    await relay();
    narrate('the relay runs again: the messages are still unpublished, so both consumers get each a second time');
    for (const messageId of messages) await settled(messageId);
    narrate(`after the duplicates: ${await tally()}`);

    const broken: string[] = [];
    for (const [i, order] of orders.entries()) {
      const points = await count('points', order.id);
      const receipts = await count('receipts', order.id);
      const which = `order ${i + 1} (${short(order.id)})`;
      if (points === 0)
        broken.push(`${AWARD_POINTS} never awarded the points for ${which}, though it reached it twice`);
      if (points > 1) broken.push(`${AWARD_POINTS} awarded the points for ${which} ${points} times`);
      if (receipts === 0)
        broken.push(`${SEND_RECEIPT} never sent the receipt for ${which}, though it reached it twice`);
      if (receipts > 1) broken.push(`${SEND_RECEIPT} sent the receipt for ${which} ${receipts} times`);
    }
    const deadLetters = await database.query<{ consumer: string; error: string }>(
      `SELECT consumer, error FROM outbox.dead_letters WHERE message_id = ANY($1)`,
      [messages],
    );
    narrate(`${deadLetters.length} dead letter(s)`);
    broken.push(...deadLetters.map(({ consumer, error }) => `${consumer} gave up on a delivery of an order: ${error}`));
    if (broken.length > 0) {
      throw new Error(
        `${broken.join('; ')} (each consumer must do its part exactly once per order, duplicates included)`,
      );
    }
  });
});
