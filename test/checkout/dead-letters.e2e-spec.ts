import { Faults } from '../../src/infra/faults/faults';
import { ConsumerCatalog, routesOf } from '../../src/infra/outbox/consuming/consumer-catalog';
import { jobIdOf, OutboxQueues } from '../../src/infra/outbox/outbox.queues';
import { MESSAGE_COLUMNS, type MessageRow, toMessage } from '../../src/infra/outbox/message-row';
import { AppProcess } from '../support/app-process';
import { CheckoutClient, LEFT } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { ProcessClient } from '../support/process-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { ADMIN_TOKEN, newQueuePrefix, TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

const WELCOME = 'notifications.send-welcome-email';
const CAPTURE = 'billing.capture-payment';

describe('A dead-lettered delivery of a checkout', () => {
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    app = await TestApp.start({
      env: { ...QUIET_ENV, OUTBOX_RELAY_INTERVAL_MS: '100', OUTBOX_ATTEMPTS: '3', OUTBOX_BACKOFF_MS: '20' },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  /** Whether BullMQ still holds the job of this delivery, in any state. */
  const inRedis = async (queue: string, jobId: string) =>
    (await app.get(OutboxQueues).queue(queue).getJob(jobId)) !== undefined;

  it('when a sweep pushes it again after it was dead-lettered and its job left Redis, then it is not handled until redriven', async () => {
    app.get(Faults).set([{ point: `consumer:${WELCOME}`, action: 'fail' }]);
    const id = await client.start({ userId: (await client.createUser()).id });
    expect(await client.until(id, ['INTERVENTION'])).toMatchObject({ step: WELCOME });
    const [deadLetter] = await app.database.query<{ id: string; message_id: string }>(
      `SELECT l.id, l.message_id FROM outbox.dead_letters l JOIN outbox.messages m ON m.id = l.message_id
        WHERE m.aggregate_id = $1 AND l.consumer = $2 AND l.status = 'dead'`,
      [id, WELCOME],
    );
    expect(deadLetter).toBeDefined();
    // Whatever made it fail is gone now: a copy that reached the handler would send the email.
    app.get(Faults).clear();

    // The job, exactly as the redelivery sweep builds it from the outbox row it read before the
    // dead letter was written.
    const [row] = await app.database.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM outbox.messages WHERE id = $1`, [
      deadLetter.message_id,
    ]);
    const message = toMessage(row);
    const route = routesOf(await app.get(ConsumerCatalog).routes(), message.type, message.headers).find(
      ({ consumer }) => consumer === WELCOME,
    )!;
    const jobId = jobIdOf(message.id, WELCOME);
    // While the dead-lettered job is still in Redis, a push under its id is a no-op and plants nothing.
    await eventually(async () => expect(await inRedis(route.queue, jobId)).toBe(false), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the dead-lettered job to leave Redis',
    });
    expect(await client.leftTheSystem(id)).toEqual({ ...LEFT.sold, welcomeEmails: 0 });

    await app
      .get(OutboxQueues)
      .push([{ queue: route.queue, jobId, name: message.type, job: { id: message.id, consumer: WELCOME } }]);
    try {
      // The push resolved, so the copy was in Redis: gone again, it was taken and finished.
      await eventually(async () => expect(await inRedis(route.queue, jobId)).toBe(false), {
        timeoutMs: 30_000,
        intervalMs: 100,
        what: 'the pushed copy to be handled and leave Redis',
      });
      expect(await client.leftTheSystem(id)).toEqual({ ...LEFT.sold, welcomeEmails: 0 });
      const refused = await app.database.query<{ outcome: string }>(
        `SELECT outcome FROM outbox.delivery_attempts WHERE message_id = $1 AND consumer = $2 AND outcome = 'duplicate'`,
        [message.id, WELCOME],
      );
      // At least this copy. On a busy machine the app's own sweep may have read the row before the
      // dead letter was written and pushed after its job left Redis, the very race planted here: a
      // second copy, refused as well (seen once in about a hundred runs beside a busy suite).
      expect(refused.length).toBeGreaterThanOrEqual(1);
      await quiet(app);
      expect(await client.leftTheSystem(id)).toEqual({ ...LEFT.sold, welcomeEmails: 0 });
      expect(await client.get(id)).toMatchObject({ status: 'INTERVENTION' });
    } finally {
      // A copy that a failure above left behind must not reach the handler while the app stops.
      await app.get(OutboxQueues).queue(route.queue).remove(jobId);
    }

    // The guard holds only while the dead letter is open: redriven, the delivery takes effect once.
    await client.admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(200);
    await client.until(id, ['COMPLETED']);
    await quiet(app);
    expect(await client.leftTheSystem(id)).toEqual(LEFT.sold);
    expect((await client.invariants([id])).violations).toEqual([]);
  });
});

/**
 * A delivery dead-lettered because its worker died too often (ADR 0009) is given up on before its
 * handler runs: its announcement must still reach the process it belongs to, as a failing
 * handler's does. The app runs as a child process, which an injected crash kills mid-step.
 */
describe('A delivery of a choreographed checkout that crashed its worker', () => {
  const queuePrefix = newQueuePrefix();
  let database: TestDatabase;
  let app: AppProcess | undefined;

  /**
   * One process at a time, over the same database and queues. The first death is not a crash
   * charged (the delivery was not running alone); the second, while it runs alone, dead-letters.
   */
  const boot = async (faultRules?: object[], { mayDieBooting = false } = {}): Promise<ProcessClient> => {
    app = await AppProcess.start({
      ...(faultRules ? { FAULT_RULES: JSON.stringify(faultRules) } : {}),
      DATABASE_URL: database.url,
      QUEUE_PREFIX: queuePrefix,
      ADMIN_TOKEN,
      FAULT_INJECTION: 'true',
      LOG_LEVEL: 'warn',
      ...QUIET_ENV,
      OUTBOX_RELAY_INTERVAL_MS: '100',
      OUTBOX_CRASH_LIMIT: '1',
      // The dead process's job is taken back a second after it last held it.
      OUTBOX_JOB_LOCK_MS: '1000',
    });
    const started = app;
    // One that takes the dead process's delivery over may reach the crash before it answers /health.
    await (mayDieBooting
      ? Promise.race([started.untilHealthy(120_000), started.exitCode(120_000)])
      : started.untilHealthy(120_000));
    return new ProcessClient(started.url);
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
  });
  afterAll(async () => {
    await app?.stop();
    await database.drop();
  });

  it('when a step crashes its worker up to the crash limit, then the checkout is in INTERVENTION and the dead letter is announced in its context', async () => {
    const crash = [{ point: `step:${CAPTURE}`, action: 'crash', times: 1 }];
    let client = await boot(crash);
    const buyer = await client.createUser();
    const id = await client.start({ userId: buyer.id, mode: 'choreography' });
    for (const death of ['first, in hand', 'second, running alone']) {
      const crashed = app!;
      expect([death, await crashed.exitCode(60_000)]).toEqual([death, null]); // killed by a signal
      expect(crashed.output.join('\n')).toContain(`Injected crash at step:${CAPTURE}:`);
      // The next process dies at the same point, running the delivery alone; the one after lives.
      if (death.startsWith('first')) await boot(crash, { mayDieBooting: true });
    }

    client = await boot();

    // Its step is not asserted: the tracker's own delivery of the grant may have been in flight at
    // a death, and the checkout not moved on to the capture yet when the dead letter came.
    expect(await client.until(id, ['INTERVENTION'], 30_000)).toMatchObject({
      failureReason: expect.stringContaining('crashed the worker 1 times'),
    });
    // It learned of it from the announcement, which carries the checkout's correlation and coordination.
    const [deadLetter, ...others] = await database.query<{ message_id: string; error: string }>(
      `SELECT l.message_id, l.error FROM outbox.dead_letters l JOIN outbox.messages m ON m.id = l.message_id
        WHERE m.aggregate_id = $1 AND l.consumer = $2 AND l.status = 'dead'`,
      [id, CAPTURE],
    );
    expect(others).toEqual([]);
    expect(deadLetter.error).toBe('crashed the worker 1 times');
    const [announcement] = await database.query<{ correlation_id: string; coordination: string | null }>(
      `SELECT correlation_id, headers->>'coordination' AS coordination FROM outbox.messages
        WHERE type = 'outbox.message-dead-lettered.v1' AND payload->>'messageId' = $1 AND payload->>'consumer' = $2`,
      [deadLetter.message_id, CAPTURE],
    );
    const checkout = (await client.call<{ correlationId: string }>('GET', `/checkouts/${id}`, 200)).correlationId;
    expect(announcement).toEqual({ correlation_id: checkout, coordination: 'choreography' });
  }, 300_000); // three processes start, one after the other
});
