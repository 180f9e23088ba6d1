import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { Housekeeping } from '../../src/infra/outbox/housekeeping';
import { OutboxQueues, jobIdOf } from '../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../src/infra/outbox/relaying/outbox.relay';
import { eventually } from '../support/eventually';
import { EntryRecorded, fixtureSwitches, Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';
import { THROUGH_THE_QUEUES } from '../support/test-env';

/**
 * The relay runs only when a test calls it, so that each test decides exactly when a batch is
 * pushed and when it dies.
 */
describe('Delivery under faults', () => {
  let app: TestApp;
  const effects = async (consumer: string, entryId: string) =>
    (
      await app.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM fixture.effects WHERE consumer = $1 AND entry_id = $2`,
        [consumer, entryId],
      )
    )[0].n;
  const attempts = (entryId: string, consumer: string) =>
    app.database.query<{ attempt: number; outcome: string; error: string | null }>(
      `SELECT a.attempt, a.outcome, a.error FROM outbox.delivery_attempts a
         JOIN outbox.messages m ON m.id = a.message_id
        WHERE m.aggregate_id = $1 AND a.consumer = $2 ORDER BY a.id`,
      [entryId, consumer],
    );
  const relay = () => app.get(OutboxRelay).relayBatch();
  const openDeadLetter = (consumer: string, entryId: string) =>
    eventually(async () => {
      const { body } = await admin(app.http().get(`/admin/dead-letters?consumer=${consumer}`)).expect(200);
      const found = body.find((d: { message: { aggregateId: string } }) => d.message.aggregateId === entryId);
      expect(found).toBeDefined();
      return found as { id: string; messageId: string };
    });
  const admin = (request: ReturnType<ReturnType<TestApp['http']>['get']>) =>
    request.set('authorization', `Bearer ${ADMIN_TOKEN}`);

  beforeAll(async () => {
    app = await TestApp.start({
      imports: [LedgerFixtureModule],
      env: { ...THROUGH_THE_QUEUES, APP_ROLES: 'api,worker', OUTBOX_ATTEMPTS: '3', OUTBOX_BACKOFF_MS: '20' },
    });
  });
  afterEach(() => {
    app.get(Faults).clear();
    Object.assign(fixtureSwitches, {
      rejectAmount: undefined,
      swallowAmount: undefined,
      hopelessAmount: undefined,
      auditDelayMs: 0,
    });
  });
  afterAll(() => app.stop());

  it('when the relay dies between push and mark, then the message is pushed twice and takes effect once', async () => {
    const entryId = randomUUID();
    await app.get(Ledger).record(entryId, 10);
    app.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);
    const pushedBefore = await metricValue(app, 'outbox_relayed_jobs_total', { queue: 'ledger' });

    await expect(relay()).rejects.toThrow('Injected fault at relay.after-push');
    await eventually(async () => expect(await effects('ledger.apply-entry', entryId)).toBe(1));
    const [unmarked] = await app.database.query<{ id: string; published_at: Date | null }>(
      `SELECT id, published_at FROM outbox.messages WHERE aggregate_id = $1 AND type = $2`,
      [entryId, EntryRecorded.type],
    );
    expect(unmarked.published_at).toBeNull();
    // The finished job has left Redis, so the second push makes a new job that only the inbox can stop.
    const ledgerQueue = app.get(OutboxQueues).queue('ledger');
    await eventually(async () =>
      expect(await ledgerQueue.getJob(jobIdOf(unmarked.id, 'ledger.apply-entry'))).toBeUndefined(),
    );

    await relay();

    await eventually(async () =>
      expect(await attempts(entryId, 'ledger.apply-entry')).toEqual([
        { attempt: 1, outcome: 'duplicate', error: null },
      ]),
    );
    expect(await metricValue(app, 'outbox_relayed_jobs_total', { queue: 'ledger' })).toBe(pushedBefore + 2);
    expect(await effects('ledger.apply-entry', entryId)).toBe(1);
    expect(await effects('audit.note-entry', entryId)).toBe(1);
  });

  it('when the same message reaches one consumer three times at once, then it takes effect once', async () => {
    const entryId = randomUUID();
    await app.get(Ledger).record(entryId, 20);
    const [row] = await app.database.query<{ id: string; created_at: Date; correlation_id: string }>(
      `SELECT id, created_at, correlation_id FROM outbox.messages WHERE aggregate_id = $1`,
      [entryId],
    );
    fixtureSwitches.auditDelayMs = 300; // the first delivery holds its transaction open while the others arrive
    const job = { id: row.id, consumer: 'audit.note-entry' };

    await app.get(OutboxQueues).push(
      [1, 2, 3].map((n) => ({
        queue: 'audit',
        jobId: `${jobIdOf(row.id, job.consumer)}-copy-${n}`,
        name: EntryRecorded.type,
        job,
      })),
    );

    await eventually(async () => expect(await attempts(entryId, 'audit.note-entry')).toHaveLength(2));
    expect(await effects('audit.note-entry', entryId)).toBe(1);
    expect((await attempts(entryId, 'audit.note-entry')).map((a) => a.outcome)).toEqual(['duplicate', 'duplicate']);
  });

  it('when one message poisons a consumer, then it is retried, dead-lettered, and the others keep flowing', async () => {
    const poison = randomUUID();
    const healthy = [randomUUID(), randomUUID(), randomUUID()];
    fixtureSwitches.rejectAmount = 13;
    await app.get(Ledger).record(poison, 13);
    for (const entryId of healthy) await app.get(Ledger).record(entryId, 1);

    await relay();

    await eventually(async () =>
      expect(await attempts(poison, 'ledger.apply-entry')).toEqual([
        { attempt: 1, outcome: 'failed', error: expect.stringContaining('bug with amounts of 13') },
        { attempt: 2, outcome: 'failed', error: expect.any(String) },
        { attempt: 3, outcome: 'dead', error: expect.any(String) },
      ]),
    );
    for (const entryId of healthy) {
      await eventually(async () => expect(await effects('ledger.apply-entry', entryId)).toBe(1));
    }
    expect(await effects('ledger.apply-entry', poison)).toBe(0);
    expect(await effects('audit.note-entry', poison)).toBe(1);

    const listed = await admin(app.http().get('/admin/dead-letters?consumer=ledger.apply-entry')).expect(200);
    const deadLetter = listed.body.find((d: { message: { aggregateId: string } }) => d.message.aggregateId === poison);
    expect(deadLetter).toMatchObject({
      consumer: 'ledger.apply-entry',
      type: EntryRecorded.type,
      attempts: 3,
      status: 'dead',
      error: expect.stringContaining('bug with amounts of 13'),
    });
    expect(await metricValue(app, 'outbox_dead_letters', { consumer: 'ledger.apply-entry' })).toBe(1);

    fixtureSwitches.rejectAmount = undefined; // the bug is fixed and deployed
    await admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(200);
    await eventually(async () => expect(await effects('ledger.apply-entry', poison)).toBe(1));
    await admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(409);
    await admin(app.http().post(`/admin/dead-letters/${randomUUID()}/redrive`)).expect(404);
    await admin(app.http().post(`/admin/dead-letters/not-a-uuid/redrive`)).expect(400);
    expect(await effects('ledger.apply-entry', poison)).toBe(1);
    expect(await metricValue(app, 'outbox_dead_letters', { consumer: 'ledger.apply-entry' })).toBe(0);
  });

  it('when a handler swallows a failed statement, then its transaction is not taken as committed: it fails and is retried', async () => {
    const swallowed = randomUUID();
    fixtureSwitches.swallowAmount = 19;
    await app.get(Ledger).record(swallowed, 19);

    await relay();

    await eventually(async () =>
      expect(await attempts(swallowed, 'ledger.apply-entry')).toEqual([
        { attempt: 1, outcome: 'failed', error: expect.stringContaining('COMMIT was answered with ROLLBACK') },
        { attempt: 2, outcome: 'failed', error: expect.any(String) },
        { attempt: 3, outcome: 'dead', error: expect.any(String) },
      ]),
    );
    expect(await effects('ledger.apply-entry', swallowed)).toBe(0);

    fixtureSwitches.swallowAmount = undefined; // the bug is fixed and deployed
    const deadLetter = await openDeadLetter('ledger.apply-entry', swallowed);
    await admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(200);
    await eventually(async () => expect(await effects('ledger.apply-entry', swallowed)).toBe(1));
  });

  it('when a handler says that retrying cannot help, then the delivery is dead-lettered at once and redrives once fixed', async () => {
    const hopeless = randomUUID();
    fixtureSwitches.hopelessAmount = 17;
    await app.get(Ledger).record(hopeless, 17);

    await relay();

    await eventually(async () =>
      expect(await attempts(hopeless, 'ledger.apply-entry')).toEqual([
        { attempt: 1, outcome: 'dead', error: 'ledger.apply-entry cannot apply amounts of 17' },
      ]),
    );
    expect(await effects('ledger.apply-entry', hopeless)).toBe(0);
    await eventually(async () => expect(await effects('audit.note-entry', hopeless)).toBe(1));
    const deadLetter = await openDeadLetter('ledger.apply-entry', hopeless);

    fixtureSwitches.hopelessAmount = undefined; // what was missing is there now
    await admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(200);
    await eventually(async () => expect(await effects('ledger.apply-entry', hopeless)).toBe(1));
  });

  it('when a dead letter outlives the retention, then its message is kept and a redrive delivers it once', async () => {
    const entryId = randomUUID();
    app.get(Faults).set([{ point: 'consumer:audit.note-entry', action: 'fail' }]);
    await app.get(Ledger).record(entryId, 50);
    await relay();
    const deadLetter = await openDeadLetter('audit.note-entry', entryId);
    await eventually(async () => expect(await effects('ledger.apply-entry', entryId)).toBe(1));
    // Everything about the message is past the retention: the sweep had marked it delivered.
    await app.database.query(
      `UPDATE outbox.messages SET delivered_at = now() - interval '2 hours' WHERE aggregate_id = $1`,
      [entryId],
    );
    await app.database.query(
      `UPDATE outbox.inbox SET handled_at = now() - interval '2 hours'
        WHERE message_id IN (SELECT id FROM outbox.messages WHERE aggregate_id = $1)`,
      [entryId],
    );

    await app.get(Housekeeping).purge(1);
    app.get(Faults).clear();
    await admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(200);

    await eventually(async () => expect(await effects('audit.note-entry', entryId)).toBe(1));
    expect(await effects('ledger.apply-entry', entryId)).toBe(1);
  });

  it('when the message of a dead letter is gone, then a redrive answers 410 and the dead letter stays open', async () => {
    const entryId = randomUUID();
    app.get(Faults).set([{ point: 'consumer:audit.note-entry', action: 'fail' }]);
    await app.get(Ledger).record(entryId, 60);
    await relay();
    const deadLetter = await openDeadLetter('audit.note-entry', entryId);
    await app.database.query(`DELETE FROM outbox.messages WHERE id = $1`, [deadLetter.messageId]);

    const { body } = await admin(app.http().post(`/admin/dead-letters/${deadLetter.id}/redrive`)).expect(410);

    expect(body).toMatchObject({ statusCode: 410, error: 'Gone', message: expect.stringContaining('discard') });
    const { body: open } = await admin(app.http().get('/admin/dead-letters?consumer=audit.note-entry')).expect(200);
    expect(open.map((d: { id: string }) => d.id)).toContain(deadLetter.id);
  });

  it('when an operator discards a dead letter, then it stays on record as discarded', async () => {
    const entryId = randomUUID();
    app.get(Faults).set([{ point: 'consumer:audit.note-entry', action: 'fail' }]);
    await app.get(Ledger).record(entryId, 40);
    await relay();
    const deadLetter = await eventually(async () => {
      const { body } = await admin(app.http().get('/admin/dead-letters?consumer=audit.note-entry')).expect(200);
      const found = body.find((d: { message: { aggregateId: string } }) => d.message.aggregateId === entryId);
      expect(found).toBeDefined();
      return found;
    });

    const discarded = await admin(app.http().delete(`/admin/dead-letters/${deadLetter.id}`)).expect(200);

    expect(discarded.body).toMatchObject({ id: deadLetter.id, status: 'discarded', resolvedAt: expect.any(String) });
    const { body } = await admin(app.http().get('/admin/dead-letters?status=discarded')).expect(200);
    expect(body.map((d: { id: string }) => d.id)).toContain(deadLetter.id);
    await admin(app.http().delete(`/admin/dead-letters/${deadLetter.id}`)).expect(409);
  });

  it('when a payload breaks its contract, then it is dead-lettered at once with the reason, not retried', async () => {
    const entryId = randomUUID();
    const id = randomUUID();
    await app.database.query(
      `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id)
       VALUES ($1, 'event', $2, $3, $4, 'bad-payload')`,
      [id, EntryRecorded.type, entryId, JSON.stringify({ entryId, amountCents: 'lots' })],
    );

    await relay();

    await eventually(async () =>
      expect(await attempts(entryId, 'ledger.apply-entry')).toEqual([
        { attempt: 1, outcome: 'dead', error: expect.stringContaining('amountCents') },
      ]),
    );
    expect(await effects('ledger.apply-entry', entryId)).toBe(0);
  });

  it('when a job names a consumer that does not exist, then it is counted under `other`, refused, and the queue moves on', async () => {
    const unknownBefore = await metricValue(app, 'outbox_consumed_total', { consumer: 'other', outcome: 'unknown' });
    const refusedBefore = await metricValue(app, 'outbox_refused_jobs_total', { queue: 'ledger', reason: 'unrouted' });
    const entryId = randomUUID();
    const id = randomUUID();
    await app.get(OutboxQueues).push([
      {
        queue: 'ledger',
        jobId: `${id}--ledger.gone`,
        name: 'ledger.something-else.v1',
        job: { id, consumer: 'ledger.gone' },
      },
    ]);
    await app.get(Ledger).record(entryId, 1);
    await relay();

    await eventually(async () => expect(await effects('ledger.apply-entry', entryId)).toBe(1));
    await eventually(async () =>
      expect(await metricValue(app, 'outbox_consumed_total', { consumer: 'other', outcome: 'unknown' })).toBe(
        unknownBefore + 1,
      ),
    );
    expect(await metricValue(app, 'outbox_refused_jobs_total', { queue: 'ledger', reason: 'unrouted' })).toBe(
      refusedBefore + 1,
    );
    expect(await metricValue(app, 'outbox_consumed_total', { consumer: 'ledger.gone' })).toBe(0);
  });

  it('when admin calls come without the right token, then they are refused with 401', async () => {
    await app.http().get('/admin/dead-letters').expect(401);
    await app.http().get('/admin/dead-letters').set('authorization', 'Bearer wrong-token-of-some-length').expect(401);
    await app.http().get('/admin/dead-letters').set('authorization', ADMIN_TOKEN).expect(401);
  });
});
