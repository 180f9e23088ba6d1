import type { Type } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../../src/infra/faults/faults';
import { OutboxQueues } from '../../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../../src/infra/outbox/relaying/outbox.relay';
import { eventually } from '../../support/eventually';
import { stillQueued } from '../../support/queued-deliveries';
import { TestDatabase } from '../../support/test-database';
import { TestApp } from '../../support/test-app';
import { implementation, invariant, narrate } from '../support/track';
import { Billing, EXTEND_MEMBERSHIP } from './exercise';
import { THROUGH_THE_QUEUES } from '../../support/test-env';

const { AnswerModule } = implementation<{ AnswerModule: Type }>(__dirname);

/**
 * Exercise 02: the relay dies between push and mark (lesson 002, exercise 2). The club runs in
 * this process; its relay runs only when the story calls it, so that it dies exactly there. In the
 * first story the relay dies with its process: the app is started again (new instances of every
 * provider, the answer's included, on the same database and queues) before the relay runs again.
 *
 * The invariant: each payment adds its days once, however often the relay pushed it.
 */
describe('Exercise 02: the relay dies between push and mark', () => {
  let database: TestDatabase;
  let app: TestApp;
  const relay = () => app.get(OutboxRelay).relayBatch();
  const start = async (queuePrefix?: string) => {
    const started = await TestApp.start({
      database,
      queuePrefix,
      imports: [AnswerModule],
      env: { ...THROUGH_THE_QUEUES, APP_ROLES: 'api,worker' },
    });
    await started.ready();
    return started;
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
    app = await start();
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  async function newMember(): Promise<string> {
    const memberId = randomUUID();
    await app.database.query(`INSERT INTO club.members (id) VALUES ($1)`, [memberId]);
    return memberId;
  }

  const paidDays = async (memberId: string) =>
    (await app.database.query<{ paid_days: number }>(`SELECT paid_days FROM club.members WHERE id = $1`, [memberId]))[0]
      .paid_days;

  /**
   * The relay pushes the pending payments and dies before marking them pushed; once the first
   * copies are handled (and their jobs gone from Redis), the next relay run pushes them again:
   * with `restart`, that of the app started again, as after a relay that died with its process.
   */
  async function relayDiesBetweenPushAndMark(messageIds: string[], { restart = false } = {}): Promise<void> {
    app.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);
    await expect(relay()).rejects.toThrow('Injected fault at relay.after-push');
    narrate(`injected: the relay pushed ${messageIds.length} message(s), then died before marking them pushed`);
    const queue = app.get(OutboxQueues).queue('club');
    await eventually(async () => {
      const handled = await app.database.query(
        `SELECT 1 FROM outbox.inbox WHERE message_id = ANY($1::uuid[]) AND consumer = $2`,
        [messageIds, EXTEND_MEMBERSHIP],
      );
      expect(handled).toHaveLength(messageIds.length);
      for (const id of messageIds) expect(await stillQueued(queue, id, EXTEND_MEMBERSHIP)).toBe(false);
    });
    narrate('the first copies were delivered');
    if (restart) {
      const { queuePrefix } = app;
      await app.stop();
      app = await start(queuePrefix);
      narrate('the app is started again (the relay died with its process): what it kept in memory is gone');
    }
    await relay();
    narrate('the relay runs again and finds them still unmarked');
    await eventually(async () => {
      const duplicates = await app.database.query(
        `SELECT 1 FROM outbox.delivery_attempts WHERE message_id = ANY($1::uuid[]) AND consumer = $2 AND outcome = 'duplicate'`,
        [messageIds, EXTEND_MEMBERSHIP],
      );
      expect(duplicates).toHaveLength(messageIds.length);
    });
    narrate(`the second copies were delivered too: ${messageIds.length} duplicate(s)`);
  }

  it('when the relay dies between push and mark with its process, then the payment adds its days once', async () => {
    const memberId = await newMember();
    const message = await app.get(Billing).confirm({ paymentId: randomUUID(), memberId, days: 30 });
    narrate('a member pays for 30 days');

    await relayDiesBetweenPushAndMark([message], { restart: true });

    const days = await paidDays(memberId);
    narrate(`the member has ${days} paid days`);
    invariant('one payment of 30 days, delivered twice, must add 30 days once', days, 30);
  });

  it('when a member renews and the relay dies between push and mark, then each payment adds its days once', async () => {
    const memberId = await newMember();
    await app.get(Billing).confirm({ paymentId: randomUUID(), memberId, days: 30 });
    await relay();
    await eventually(async () => expect(await paidDays(memberId)).toBeGreaterThan(0));
    narrate(
      `a member paid for 30 days (delivered once: ${await paidDays(memberId)} paid days); a month later, renews for 30 more`,
    );
    const renewal = await app.get(Billing).confirm({ paymentId: randomUUID(), memberId, days: 30 });

    await relayDiesBetweenPushAndMark([renewal]);

    const days = await paidDays(memberId);
    narrate(`the member has ${days} paid days`);
    invariant('two payments of 30 days (the second delivered twice) must add 60 days', days, 60);
  });
});
