import { Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../../src/infra/faults/faults';
import { type MessageContract, OutboxPublisher } from '../../../src/infra/outbox';
import { jobIdOf, OutboxQueues } from '../../../src/infra/outbox/outbox.queues';
import { eventually } from '../../support/eventually';
import { quiet } from '../../support/quiet';
import { TestApp } from '../../support/test-app';
import { TestDatabase } from '../../support/test-database';
import { EXERCISE_ENV } from '../support/exercise-app';
import { implementation, narrate } from '../support/track';
import {
  ON_ACTIVATED,
  ON_CANCELLED,
  type OutOfOrderAnswer,
  schema,
  SubscriptionActivated,
  SubscriptionCancelled,
  type SubscriptionChangedPayload,
} from './exercise';

const answer = implementation<OutOfOrderAnswer>(__dirname);

@Module({ providers: [answer.SubscriptionProjection] })
class ProjectionModule {}

/**
 * Exercise 05: out of order. Events about one subscription are published in order; one of them
 * is held back for real: its consumer fails once (an injected consumer fault) and BullMQ
 * schedules the retry a minute later, while the next event is delivered and applied. Then the
 * spec lets the minute pass (it promotes the delayed retry) and the old event arrives last; in
 * the first story, a deploy restarts the app within that minute. Whatever the order of delivery,
 * the projection must end as the newest event says.
 */
describe('Exercise 05: out of order', () => {
  let database: TestDatabase;
  let app: TestApp;

  const publish = (contract: MessageContract<SubscriptionChangedPayload>, subscriptionId: string, version: number) =>
    app
      .get(TransactionHost)
      .withTransaction(() =>
        app.get(OutboxPublisher).publish(contract, { subscriptionId, version }, { aggregateId: subscriptionId }),
      );
  /** The transport is done with this delivery: in the consumer's inbox, or dead-lettered. */
  const settled = (messageId: string, consumer: string) =>
    eventually(
      async () => {
        const rows = await database.query(
          `SELECT 1 FROM outbox.inbox WHERE message_id = $1 AND consumer = $2
           UNION ALL SELECT 1 FROM outbox.dead_letters WHERE message_id = $1 AND consumer = $2`,
          [messageId, consumer],
        );
        expect(rows.length).toBeGreaterThan(0);
      },
      { what: `${consumer} to be done with message ${messageId}` },
    );
  const retryOf = (messageId: string, consumer: string) =>
    app.get(OutboxQueues).queue('access').getJob(jobIdOf(messageId, consumer));
  /** The delivery failed and waits for its retry, a minute away (OUTBOX_BACKOFF_MS). */
  const heldBack = (messageId: string, consumer: string) =>
    eventually(async () => expect(await (await retryOf(messageId, consumer))?.getState()).toBe('delayed'), {
      what: `the delivery of ${messageId} to ${consumer} to wait for its retry`,
    });
  /** As if the minute had passed. */
  const retryNow = async (messageId: string, consumer: string) => (await retryOf(messageId, consumer))!.promote();

  /** The invariant: the projection ends as the newest event says, in a learner's words when it does not. */
  async function expectNewest(subscriptionId: string, newest: { event: string; status: string }) {
    const [row] = await database.query<{ status: string; version: number }>(
      `SELECT status, version FROM ex05.subscriptions WHERE subscription_id = $1`,
      [subscriptionId],
    );
    narrate(`the projection says: ${row ? `${row.status} (version ${row.version})` : 'nothing'}`);
    if (!row) throw new Error(`the projection has no row for the subscription, though ${newest.event} was applied`);
    if (row.status !== newest.status) {
      throw new Error(
        `the projection says "${row.status}", but the newest event, ${newest.event}, says "${newest.status}": ` +
          'an older event, delivered late, overwrote a newer state',
      );
    }
  }

  /** The app with the answer's projection, on the exercise's database (and queues, when given). */
  const start = async (queuePrefix?: string) => {
    const started = await TestApp.start({
      database,
      queuePrefix,
      imports: [ProjectionModule],
      // A failed delivery is retried after a minute: long enough that the next event overtakes it.
      env: { ...EXERCISE_ENV, OUTBOX_BACKOFF_MS: '60000' },
    });
    await started.ready();
    return started;
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
    await database.query(schema);
    app = await start();
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  it('when an old cancellation arrives after the subscriber came back, then the subscription stays active', async () => {
    const subscriptionId = randomUUID();
    const v1 = await publish(SubscriptionActivated, subscriptionId, 1);
    await settled(v1, ON_ACTIVATED);
    narrate('v1 SubscriptionActivated: delivered and applied');

    app.get(Faults).set([{ point: `consumer:${ON_CANCELLED}`, action: 'fail', times: 1 }]);
    const v2 = await publish(SubscriptionCancelled, subscriptionId, 2);
    await heldBack(v2, ON_CANCELLED);
    narrate(
      `FAULT: the delivery of v2 SubscriptionCancelled failed once (consumer:${ON_CANCELLED}); its retry is a minute away`,
    );

    const v3 = await publish(SubscriptionActivated, subscriptionId, 3);
    await settled(v3, ON_ACTIVATED);
    narrate('v3 SubscriptionActivated (the subscriber came back): delivered and applied before v2');

    const { queuePrefix } = app;
    await app.stop();
    app = await start(queuePrefix);
    narrate(
      'a deploy restarts the app within the minute: what it kept in memory is gone, the database and queues are not',
    );

    await retryNow(v2, ON_CANCELLED);
    await settled(v2, ON_CANCELLED);
    narrate('the minute passes (the spec promotes the retry): v2 SubscriptionCancelled is delivered last');
    await quiet(app);

    await expectNewest(subscriptionId, { event: 'v3 SubscriptionActivated', status: 'active' });
  });

  it('when an old activation arrives after the cancellation, then the subscription stays cancelled', async () => {
    const subscriptionId = randomUUID();
    app.get(Faults).set([{ point: `consumer:${ON_ACTIVATED}`, action: 'fail', times: 1 }]);
    const v1 = await publish(SubscriptionActivated, subscriptionId, 1);
    await heldBack(v1, ON_ACTIVATED);
    narrate(
      `FAULT: the delivery of v1 SubscriptionActivated failed once (consumer:${ON_ACTIVATED}); its retry is a minute away`,
    );

    const v2 = await publish(SubscriptionCancelled, subscriptionId, 2);
    await settled(v2, ON_CANCELLED);
    narrate('v2 SubscriptionCancelled: delivered and applied first, to a subscription the projection never saw');

    await retryNow(v1, ON_ACTIVATED);
    await settled(v1, ON_ACTIVATED);
    narrate('the minute passes: v1 SubscriptionActivated is delivered last');
    await quiet(app);

    await expectNewest(subscriptionId, { event: 'v2 SubscriptionCancelled', status: 'cancelled' });
  });
});
