import { Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { jobIdOf } from '../../../src/infra/outbox/outbox.queues';
import type { MessageHandler } from '../../../src/infra/outbox/consuming/subscriptions';
import { eventually } from '../../support/eventually';
import { type EntryPayload, TransportRig } from '../../support/transport-rig';

/** The lock of the test's worker that dies: short, so that its job is soon found stalled. */
const LOCK_MS = 500;

/**
 * Deliveries whose worker died holding them: a worker of the test's own takes the job and is
 * closed without finishing it, as a process that dies would leave it; a checker of the test's own
 * (BullMQ's stalled-job check) puts it back, counted as a stall. Then the consumer's workers start.
 */
describe('A delivery whose worker died', () => {
  let rig: TransportRig;

  beforeEach(async () => {
    // The consumer's own lock stays the default (30 s): under load, a lock of its own that lapsed
    // would be a stall the test did not make.
    rig = await TransportRig.start({ outbox: { crashLimit: 2 } });
    await rig.consume({ consumer: 'unit.apply-entry' }, applying);
  });
  afterEach(() => rig?.stop());

  const applying: MessageHandler = (payload) => rig.noteEffect('unit.apply-entry', (payload as EntryPayload).entryId);

  /** A worker takes the next job of the queue and dies with it; the job comes back once stalled. */
  async function dieHolding(name: string, jobId: string): Promise<void> {
    const queue = rig.queues.queue(name);
    const options = { prefix: rig.queuePrefix.of(name), autorun: false, lockDuration: LOCK_MS };
    const before = (await queue.getJob(jobId))!.stalledCounter;
    const dying = new Worker(name, undefined, { ...options, connection: rig.redis.open('dying', 'blocking') });
    const held = await dying.getNextJob('dying').finally(() => dying.close(true));
    expect(held?.id).toBe(jobId);
    const checker = new Worker(name, undefined, {
      ...options,
      connection: rig.redis.open('checker', 'blocking'),
      stalledInterval: 100,
      maxStalledCount: 10,
    });
    void checker.startStalledCheckTimer();
    try {
      await eventually(
        async () => {
          const job = await queue.getJob(jobId);
          expect([job?.stalledCounter, await job?.getState()]).toEqual([before + 1, 'waiting']);
        },
        { timeoutMs: 10_000, what: 'the job to be found stalled' },
      );
    } finally {
      await checker.close();
    }
  }

  const crashes = async (ids: string[]) =>
    (
      await rig.query<{ consumer: string; id: string; n: number }>(
        `SELECT consumer, message_id AS id, count(*)::int AS n FROM outbox.delivery_attempts
          WHERE message_id = ANY($1::uuid[]) AND outcome = 'crashed' GROUP BY consumer, message_id`,
        [ids],
      )
    )
      .map(({ consumer, id, n }) => `${consumer} ${ids.indexOf(id)}: ${n}`)
      .sort();
  /** The message's one dead letter, once it is written. */
  const theDeadLetterOf = (id: string) =>
    eventually(
      async () => {
        const rows = await rig.query<{ consumer: string; error: string }>(
          `SELECT consumer, error FROM outbox.dead_letters WHERE message_id = $1`,
          [id],
        );
        expect(rows).toHaveLength(1);
        return rows;
      },
      { what: 'a delivery of the message to be dead-lettered' },
    );
  const effects = async (entries: string[]) =>
    (
      await rig.query<{ consumer: string; entry_id: string; n: number }>(
        `SELECT consumer, entry_id, count(*)::int AS n FROM unit.effects WHERE entry_id = ANY($1::uuid[])
          GROUP BY consumer, entry_id`,
        [entries],
      )
    )
      .map(({ consumer, entry_id, n }) => `${consumer} ${entries.indexOf(entry_id)}: ${n}`)
      .sort();

  it('when a batch’s worker dies, then its deliveries run again alone, none of them counted, and each takes effect once', async () => {
    const entries = [randomUUID(), randomUUID(), randomUUID()];
    const ids = await rig.publish(...entries.map((entryId) => ({ payload: { entryId, amountCents: 1 } })));
    expect(await rig.relay.relayBatch()).toBe(3);
    const [batch] = await rig.queues.queue('unit').getJobs(['waiting']);

    await dieHolding('unit', batch.id!);
    rig.startConsuming();

    const once = ['unit.apply-entry 0: 1', 'unit.apply-entry 1: 1', 'unit.apply-entry 2: 1'];
    await eventually(async () => expect(await effects(entries)).toEqual(once), {
      what: 'every delivery of the batch to take effect',
    });
    expect(await crashes(ids)).toEqual([]);
    expect(await rig.query(`SELECT 1 FROM outbox.dead_letters`)).toEqual([]);
  }, 30_000);

  /**
   * What a process that died while it ran a delivery alone leaves behind: its run, recorded before
   * the handler and never ended, and its job, found stalled. The process was last seen long ago.
   */
  async function diedRunning(queue: string, id: string, consumer: string): Promise<void> {
    const processId = randomUUID();
    await rig.query(
      `INSERT INTO outbox.processes (id, host, pid, seen_at) VALUES ($1, 'gone', 1, clock_timestamp() - interval '1 hour')`,
      [processId],
    );
    await rig.query(`INSERT INTO outbox.runs (id, message_id, consumer, process_id) VALUES ($1, $2, $3, $4)`, [
      randomUUID(),
      id,
      consumer,
      processId,
    ]);
    await dieHolding(queue, jobIdOf(id, consumer));
  }

  it('when a delivery’s job stalls while its worker lives (cut from Redis past its lock), more often than the crash limit, then no crash is charged and it takes effect once', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 1 } });
    expect(await rig.relay.relayBatch()).toBe(1);
    for (let stall = 0; stall < 3; stall += 1) await dieHolding('unit', jobIdOf(id, 'unit.apply-entry'));

    rig.startConsuming();

    await eventually(async () => expect(await effects([entryId])).toEqual(['unit.apply-entry 0: 1']), {
      what: 'the delivery to take effect',
    });
    expect(await crashes([id])).toEqual([]);
    expect(await rig.query(`SELECT 1 FROM outbox.dead_letters`)).toEqual([]);
    expect(await rig.query(`SELECT 1 FROM outbox.runs`)).toEqual([]);
  }, 30_000);

  it('when a job says its delivery crashed the worker more often than the limit, then nothing is charged: it runs, and takes effect once', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 1 } });
    await rig.queues.push([
      {
        queue: 'unit',
        jobId: jobIdOf(id, 'unit.apply-entry'),
        name: 'forged',
        job: {
          id,
          consumer: 'unit.apply-entry',
          charged: [1, 2, 3],
          alone: true,
          stallsCounted: 9,
          ranAlone: 1,
        } as never,
      },
    ]);

    rig.startConsuming();

    await eventually(async () => expect(await effects([entryId])).toEqual(['unit.apply-entry 0: 1']), {
      what: 'the delivery to take effect',
    });
    expect(await crashes([id])).toEqual([]);
    expect(await rig.query(`SELECT 1 FROM outbox.dead_letters`)).toEqual([]);
  }, 30_000);

  it('when processes died running a delivery alone as often as the crash limit, then it alone is dead-lettered, and the delivery of the same message to another consumer, which died once, is handled', async () => {
    await rig.consume({ consumer: 'audit.note-entry' }, (payload) =>
      rig.noteEffect('audit.note-entry', (payload as EntryPayload).entryId),
    );
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 1 } });
    expect(await rig.relay.relayBatch()).toBe(1);
    await diedRunning('unit', id, 'unit.apply-entry');
    await diedRunning('unit', id, 'unit.apply-entry');
    await diedRunning('audit', id, 'audit.note-entry');
    // The other consumer's delivery waits until the first is dead-lettered: its count would then
    // see the first one's crashes, were they counted per message rather than per delivery.
    await rig.queues.queue('audit').pause();

    rig.startConsuming();

    const deadLetters = await theDeadLetterOf(id);
    expect(deadLetters).toEqual([{ consumer: 'unit.apply-entry', error: 'crashed the worker 2 times' }]);
    await rig.queues.queue('audit').resume();
    await eventually(async () => expect(await effects([entryId])).toEqual(['audit.note-entry 0: 1']), {
      what: 'the other consumer to take effect',
    });
    expect(await crashes([id])).toEqual(['audit.note-entry 0: 1', 'unit.apply-entry 0: 2']);
    expect(await rig.query(`SELECT 1 FROM outbox.runs`)).toEqual([]);
  }, 30_000);

  it('when a delivery runs alone in a process that is alive (it lost Redis, not its life), then it is not charged, and waits until that run ends to take effect once', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 1 } });
    expect(await rig.relay.relayBatch()).toBe(1);
    const [alive, run] = [randomUUID(), randomUUID()];
    await rig.query(`INSERT INTO outbox.processes (id, host, pid) VALUES ($1, 'alive', 1)`, [alive]);
    await rig.query(
      `INSERT INTO outbox.runs (id, message_id, consumer, process_id) VALUES ($1, $2, 'unit.apply-entry', $3)`,
      [run, id, alive],
    );
    await dieHolding('unit', jobIdOf(id, 'unit.apply-entry'));

    rig.startConsuming();

    // The live process goes on being seen; its run is in progress, so this one waits.
    const seen = setInterval(
      () => void rig.query(`UPDATE outbox.processes SET seen_at = clock_timestamp() WHERE id = $1`, [alive]),
      200,
    );
    try {
      await eventually(
        async () => {
          const job = await rig.queues.queue('unit').getJob(jobIdOf(id, 'unit.apply-entry'));
          expect(job?.attemptsStarted).toBeGreaterThanOrEqual(2);
        },
        { what: 'the suspect to be taken, and put back' },
      );
      expect(await effects([entryId])).toEqual([]);
    } finally {
      clearInterval(seen);
    }
    // The other process ends its run (its transaction deletes the row, as it would commit).
    await rig.query(`DELETE FROM outbox.runs WHERE id = $1`, [run]);

    await eventually(async () => expect(await effects([entryId])).toEqual(['unit.apply-entry 0: 1']), {
      what: 'the delivery to take effect once the other run ended',
      timeoutMs: 20_000,
    });
    expect(await crashes([id])).toEqual([]);
  }, 40_000);

  it('when the process dies as a delivery’s last crash is charged, before its dead letter, then neither is kept, and the next take charges the same runs once: never past the limit', async () => {
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 1 } });
    expect(await rig.relay.relayBatch()).toBe(1);
    await diedRunning('unit', id, 'unit.apply-entry');
    await diedRunning('unit', id, 'unit.apply-entry');
    const died = jest.spyOn(rig.deliveryLog, 'deadLetter').mockRejectedValueOnce(new Error('the process died here'));

    rig.startConsuming();

    const deadLetters = await theDeadLetterOf(id);
    expect(died).toHaveBeenCalled();
    expect(deadLetters).toEqual([{ consumer: 'unit.apply-entry', error: 'crashed the worker 2 times' }]);
    expect(await crashes([id])).toEqual(['unit.apply-entry 0: 2']);
    expect(await effects([entryId])).toEqual([]);
  }, 30_000);

  it('when a delivery charged with a crash fails and is tried again, then its crash is not charged again', async () => {
    let failures = 0;
    await rig.consume({ consumer: 'audit.note-entry' }, async (payload) => {
      if (failures++ === 0) throw new Error('failed once');
      await rig.noteEffect('audit.note-entry', (payload as EntryPayload).entryId);
    });
    const entryId = randomUUID();
    const [id] = await rig.publish({ payload: { entryId, amountCents: 1 } });
    expect(await rig.relay.relayBatch()).toBe(1);
    await diedRunning('audit', id, 'audit.note-entry');

    rig.startConsuming();

    await eventually(
      async () => expect(await effects([entryId])).toEqual(['audit.note-entry 0: 1', 'unit.apply-entry 0: 1']),
      { what: 'both deliveries to take effect, the one that died after a retry' },
    );
    expect(failures).toBe(2);
    expect(await crashes([id])).toEqual(['audit.note-entry 0: 1']);
    expect(await rig.query(`SELECT 1 FROM outbox.dead_letters`)).toEqual([]);
    expect(await rig.query(`SELECT 1 FROM outbox.runs`)).toEqual([]);
  }, 30_000);

  it('when a delivery that killed its worker runs again, then it has its process to itself: no delivery of another queue is in flight when it starts, nor starts while it runs', async () => {
    const events: string[] = [];
    const slowly = (consumer: string) => async (payload: unknown) => {
      const { entryId } = payload as EntryPayload;
      events.push(`start ${consumer} ${entryId}`);
      // The suspect's long enough for the test to publish more while it runs.
      const ms = consumer === 'unit.watch-entry' && entryId === suspect ? 1_500 : 150;
      await new Promise((resolve) => setTimeout(resolve, ms));
      await rig.noteEffect(consumer, entryId);
      events.push(`end ${consumer} ${entryId}`);
    };
    await rig.consume({ consumer: 'audit.note-entry' }, slowly('audit.note-entry'));
    await rig.consume({ consumer: 'unit.watch-entry' }, slowly('unit.watch-entry'));
    const suspect = randomUUID();
    const [id] = await rig.publish({ payload: { entryId: suspect, amountCents: 1 } });
    expect(await rig.relay.relayBatch()).toBe(1);
    // The unit queue's job of this message holds its two consumers' deliveries: a batch, which a
    // death splits into suspects; the audit queue's is a job of one delivery, left to run as usual.
    const [batch] = await rig.queues.queue('unit').getJobs(['waiting']);
    await dieHolding('unit', batch.id!);
    const others = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await rig.publish(...others.map((entryId) => ({ payload: { entryId, amountCents: 1 } })));
    expect(await rig.relay.relayBatch()).toBe(4);

    rig.startConsuming();
    await eventually(async () => expect(events).toContain(`start unit.watch-entry ${suspect}`), {
      what: 'the suspect to run',
    });
    const later = [randomUUID(), randomUUID()];
    await rig.publish(...later.map((entryId) => ({ payload: { entryId, amountCents: 1 } })));
    expect(await rig.relay.relayBatch()).toBe(2);
    const all = [suspect, ...others, ...later];

    const everyEffect = all.flatMap((_, index) =>
      ['audit.note-entry', 'unit.apply-entry', 'unit.watch-entry'].map((consumer) => `${consumer} ${index}: 1`),
    );
    await eventually(async () => expect(await effects(all)).toEqual(everyEffect.sort()), {
      what: 'every delivery to take effect once',
    });
    // The suspects: the unit queue's deliveries of the first message (apply-entry's is not logged).
    const { start, end } = {
      start: events.indexOf(`start unit.watch-entry ${suspect}`),
      end: events.indexOf(`end unit.watch-entry ${suspect}`),
    };
    expect(start).toBeGreaterThanOrEqual(0);
    const before = events.slice(0, start);
    expect(before.filter((event) => event.startsWith('start')).length).toBe(
      before.filter((event) => event.startsWith('end')).length,
    );
    expect(events.slice(start + 1, end)).toEqual([]);
    expect(await crashes([id])).toEqual([]);
  }, 30_000);
});
