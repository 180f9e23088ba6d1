import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { OutboxQueues } from '../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../src/infra/outbox/relaying/outbox.relay';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { EntryApplied, EntryRecorded, Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { RedisServer } from '../support/redis-server';
import { logs, TestApp } from '../support/test-app';
import { THROUGH_THE_QUEUES } from '../support/test-env';

/**
 * Redis carries ids, Postgres carries the truth. Whoever can write to the Redis (it is shared, or
 * has no password) can push jobs into the queues; a job names a message of the outbox and a
 * consumer, and nothing else it says is believed. A Redis of the test's own, so that MONITOR sees
 * every command the app sends and nothing of anybody else's.
 */
describe('What a job carries, and what a worker believes of it', () => {
  let redis: RedisServer;
  let app: TestApp;
  let monitor: IORedis;
  let monitoring: IORedis;
  /** Every argument of every command the app sent to Redis since the test began. */
  let sent: string[] = [];

  const relay = () => app.get(OutboxRelay).relayBatch();
  const push = (queue: string, job: object, name: string = EntryRecorded.type) =>
    app.get(OutboxQueues).push([{ queue, jobId: `planted-${randomUUID()}`, name, job: job as never }]);
  const messageOf = async (entryId: string, type: string) =>
    (
      await app.database.query<{ id: string }>(`SELECT id FROM outbox.messages WHERE aggregate_id = $1 AND type = $2`, [
        entryId,
        type,
      ])
    )[0].id;
  const effects = (entryId: string) =>
    app.database.query<{ consumer: string }>(
      `SELECT consumer FROM fixture.effects WHERE entry_id = $1 ORDER BY consumer`,
      [entryId],
    );
  const records = async (messageId: string) => {
    const [row] = await app.database.query<{ inbox: number; attempts: number; dead: number }>(
      `SELECT (SELECT count(*)::int FROM outbox.inbox WHERE message_id = $1) AS inbox,
              (SELECT count(*)::int FROM outbox.delivery_attempts WHERE message_id = $1) AS attempts,
              (SELECT count(*)::int FROM outbox.dead_letters WHERE message_id = $1) AS dead`,
      [messageId],
    );
    return row;
  };
  const refused = (queue: string, reason: string) => metricValue(app, 'outbox_refused_jobs_total', { queue, reason });
  const waiting = async (queue: string) => {
    const counts = await app.get(OutboxQueues).queue(queue).getJobCounts('waiting', 'active', 'delayed');
    return counts.waiting + counts.active + counts.delayed;
  };

  beforeAll(async () => {
    redis = await RedisServer.start();
    monitor = new IORedis(redis.url);
    monitoring = await monitor.monitor();
    monitoring.on('monitor', (_time: string, args: string[]) => sent.push(...args));
    app = await TestApp.start({
      imports: [LedgerFixtureModule],
      env: { ...THROUGH_THE_QUEUES, REDIS_URL: redis.url, APP_ROLES: 'api,worker,orchestrator' },
    });
  });
  beforeEach(() => {
    sent = [];
  });
  afterAll(async () => {
    await app.stop();
    monitoring.disconnect();
    monitor.disconnect();
    await redis.stop();
  });

  it('when checkouts run in both modes, then nothing the app sends to Redis holds a buyer or a payload', async () => {
    const relayRunning = await TestApp.start({
      database: app.database,
      queuePrefix: app.queuePrefix,
      env: { REDIS_URL: redis.url, APP_ROLES: 'relay' },
    });
    try {
      const client = new CheckoutClient(app);
      const buyer = await client.createUser({ name: `Ana ${randomUUID().slice(0, 8)}` });
      const ids = [
        await client.start({ userId: buyer.id, mode: 'choreography' }),
        await client.start({ userId: buyer.id, mode: 'orchestration' }),
      ];
      for (const id of ids) await client.until(id, ['COMPLETED'], 30_000);

      // Jobs were pushed and taken (the relay and the workers spoke to this Redis).
      expect(sent.filter((arg) => arg === 'checkout.checkout-requested.v1').length).toBeGreaterThan(0);
      const carried = sent.join('\n');
      const secrets = [buyer.email, buyer.name, buyer.id, 'pm_card_ok', '"payload"', '"headers"', '"correlationId"'];
      expect(secrets.filter((secret) => carried.includes(secret))).toEqual([]);
    } finally {
      await relayRunning.stop();
    }
  }, 120_000);

  it('when a job names a real message with a forged payload and type, then the consumer gets the message as the outbox has it', async () => {
    const [real, forged] = [randomUUID(), randomUUID()];
    await app.get(Ledger).record(real, 1); // not relayed: only the planted job names it
    const id = await messageOf(real, EntryRecorded.type);

    await push('ledger', {
      id,
      consumer: 'ledger.apply-entry',
      type: EntryApplied.type,
      payload: { entryId: forged, amountCents: 1_000_000 },
      headers: { flagged: 'yes' },
      correlationId: 'forged',
    });

    await eventually(async () => expect(await effects(real)).toEqual([{ consumer: 'ledger.apply-entry' }]));
    expect(await effects(forged)).toEqual([]);
    const [inbox] = await app.database.query<{ correlation_id: string }>(
      `SELECT correlation_id FROM outbox.inbox WHERE message_id = $1`,
      [id],
    );
    expect(inbox.correlation_id).not.toBe('forged');

    // Once the outbox's own jobs are pushed, every consumer has it once, the planted one included.
    await relay();
    await eventually(async () =>
      expect(await effects(real)).toEqual([
        { consumer: 'audit.note-applied' },
        { consumer: 'audit.note-entry' },
        { consumer: 'ledger.apply-entry' },
      ]),
    );
  });

  it('when a job names a real message for a consumer that does not take it, then it is refused, counted, and has no effect', async () => {
    const entryId = randomUUID();
    await app.get(Ledger).record(entryId, 1); // not relayed yet: nothing is recorded for it but by the planted jobs
    const recorded = await messageOf(entryId, EntryRecorded.type);
    const before = { ledger: await refused('ledger', 'unrouted'), audit: await refused('audit', 'unrouted') };

    // Another consumer's message (apply-entry takes entries, not their application), another type
    // than the consumer's (note-applied takes applications), and a header filter that does not match.
    await push('ledger', { id: recorded, consumer: 'ledger.apply-entry' }); // a control: this one it takes
    await push('audit', { id: recorded, consumer: 'audit.note-applied', type: EntryApplied.type }, EntryApplied.type);
    await push('audit', { id: recorded, consumer: 'audit.note-flagged', headers: { flagged: 'yes' } });

    await eventually(async () => expect(await refused('audit', 'unrouted')).toBe(before.audit + 2));
    await eventually(async () => expect(await waiting('audit')).toBe(0));
    await eventually(async () => expect(await effects(entryId)).toEqual([{ consumer: 'ledger.apply-entry' }]));
    const applied = await messageOf(entryId, EntryApplied.type);
    await push('ledger', { id: applied, consumer: 'ledger.apply-entry', type: EntryRecorded.type });
    await eventually(async () => expect(await refused('ledger', 'unrouted')).toBe(before.ledger + 1));

    expect(await effects(entryId)).toEqual([{ consumer: 'ledger.apply-entry' }]);
    expect(await records(recorded)).toEqual({ inbox: 1, attempts: 0, dead: 0 });
    expect(await records(applied)).toEqual({ inbox: 0, attempts: 0, dead: 0 });
    expect(
      logs.lines.some((line) => String(line.msg).includes(`audit.note-flagged does not take message ${recorded}`)),
    ).toBe(true);

    // The outbox's own jobs still deliver it to each consumer that takes it, once.
    await relay();
    await eventually(async () =>
      expect(await effects(entryId)).toEqual([
        { consumer: 'audit.note-applied' },
        { consumer: 'audit.note-entry' },
        { consumer: 'ledger.apply-entry' },
      ]),
    );
    expect((await records(recorded)).inbox).toBe(2);
  });

  it('when a job does not name a message and a consumer, then it is refused as malformed and the queue moves on', async () => {
    const before = await refused('ledger', 'malformed');
    const entryId = randomUUID();

    await push('ledger', { consumer: 'ledger.apply-entry', payload: { entryId, amountCents: 1 } });
    await push('ledger', { id: 'not-a-message-id', consumer: 'ledger.apply-entry' });
    await push('ledger', { id: randomUUID(), consumer: 'Robert"); DROP TABLE outbox.inbox; --' });

    await eventually(async () => expect(await refused('ledger', 'malformed')).toBe(before + 3));
    await app.get(Ledger).record(entryId, 1);
    await relay();
    await eventually(async () => expect(await effects(entryId)).toHaveLength(2));
  });
});
