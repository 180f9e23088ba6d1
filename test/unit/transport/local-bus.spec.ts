import { randomUUID } from 'node:crypto';
import { Hooks } from '../../../src/infra/hooks/hooks';
import type { Delivery } from '../../../src/infra/outbox/message';
import type { MessageHandler } from '../../../src/infra/outbox/consuming/subscriptions';
import { eventually } from '../../support/eventually';
import { type EntryPayload, EntryNoted, TransportRig } from '../../support/transport-rig';

const LEASE_MS = 1_000;

/** A process that dies once its transaction committed, before handing its messages to its consumers. */
class DyingHooks extends Hooks {
  dying = false;
  override handingOver<M>(messages: M[]): M[] {
    if (this.dying) throw new Error('the process died before the hand-over');
    return messages;
  }
}

interface MessageState {
  published: boolean;
  claimed: string | null;
}

/**
 * The in-process bus (OUTBOX_DELIVERY=local): a message whose consumers all run in the process
 * that writes it is handed to them by that process after the commit, through the inbox, with no
 * job in Redis; its first failure, a consumer elsewhere or a full bus sends it through the queues,
 * and what a dead process claimed is the sweep's once its lease runs out.
 */
describe('The local bus', () => {
  let rig: TransportRig;
  const hooks = new DyingHooks();
  const calls: Array<{ consumer: string; entryId: string; attempt: number }> = [];
  let holding: Promise<void> | undefined;
  const handler =
    (consumer: string): MessageHandler =>
    async (payload, delivery: Delivery) => {
      const { entryId, amountCents } = payload as EntryPayload;
      calls.push({ consumer, entryId, attempt: delivery.attempt });
      if (amountCents === 13) throw new Error('thirteen is refused');
      if (amountCents === 7) await holding;
      await rig.noteEffect(consumer, entryId);
    };
  const effects = async (entryId: string) =>
    (
      await rig.query<{ consumer: string }>(`SELECT consumer FROM unit.effects WHERE entry_id = $1 ORDER BY consumer`, [
        entryId,
      ])
    ).map((row) => row.consumer);
  const stateOf = async (id: string): Promise<MessageState> =>
    (
      await rig.query<MessageState>(
        `SELECT published_at IS NOT NULL AS published, claimed_by::text AS claimed FROM outbox.messages WHERE id = $1`,
        [id],
      )
    )[0];
  const jobsInRedis = async () => {
    const counts = await rig.queues.queue('unit').getJobCounts('waiting', 'active', 'delayed', 'completed');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  };
  const entry = (amountCents = 1) => ({ payload: { entryId: randomUUID(), amountCents } });

  beforeAll(async () => {
    rig = await TransportRig.start({
      hooks,
      outbox: {
        delivery: 'local',
        localInFlight: 2,
        attempts: 2,
        backoffMs: 50,
        processLeaseMs: LEASE_MS,
        redeliverAfterMs: 600_000,
      },
    });
    await rig.consume({ consumer: 'unit.apply-entry' }, handler('unit.apply-entry'));
    await rig.consume({ consumer: 'unit.audit-entry' }, handler('unit.audit-entry'));
    await rig.startLocalBus();
  });
  afterAll(() => rig?.stop());

  it('when every consumer of a message runs here, then each handles it once after the commit, and nothing goes through Redis', async () => {
    const [id] = await rig.publish(entry());
    const { entryId } = (
      await rig.query<{ payload: EntryPayload }>(`SELECT payload FROM outbox.messages WHERE id = $1`, [id])
    )[0].payload;

    await eventually(async () => expect(await effects(entryId)).toEqual(['unit.apply-entry', 'unit.audit-entry']));
    expect(await stateOf(id)).toEqual({ published: true, claimed: rig.lease.processId });
    expect(await rig.relay.relayBatch()).toBe(0);
    expect(await jobsInRedis()).toBe(0);
    expect(
      await rig.query(`SELECT consumer, attempt FROM outbox.inbox WHERE message_id = $1 ORDER BY consumer`, [id]),
    ).toEqual([
      { consumer: 'unit.apply-entry', attempt: 1 },
      { consumer: 'unit.audit-entry', attempt: 1 },
    ]);
  });

  it('when another running version has a consumer of the type that is not here, then the message goes through the relay', async () => {
    await rig.query(
      `INSERT INTO outbox.consumer_versions (consumer, version, queue, types) VALUES ('unit.elsewhere', 'v0', 'unit', $1)`,
      [[EntryNoted.type]],
    );
    try {
      // Once the bus's routes know it (read every second).
      await eventually(() => expect(rig.localRoutes.claims(EntryNoted.type, {})).toBeUndefined(), { intervalMs: 100 });
      const [id] = await rig.publish(entry());
      expect(await stateOf(id)).toEqual({ published: false, claimed: null });
    } finally {
      await rig.query(`DELETE FROM outbox.consumer_versions WHERE consumer = 'unit.elsewhere'`);
    }
    await eventually(() => expect(rig.localRoutes.claims(EntryNoted.type, {})).toBeDefined(), { intervalMs: 100 });
    await rig.relay.drain(() => false);
    await rig.queues.queue('unit').obliterate({ force: true });
  });

  it('when a local delivery fails, then it goes on through the queues from attempt 2, and is dead-lettered after the last', async () => {
    rig.startConsuming();
    const [id] = await rig.publish(entry(13));

    await eventually(
      async () =>
        expect(
          await rig.query(
            `SELECT consumer, attempts FROM outbox.dead_letters WHERE message_id = $1 ORDER BY consumer`,
            [id],
          ),
        ).toEqual([
          { consumer: 'unit.apply-entry', attempts: 2 },
          { consumer: 'unit.audit-entry', attempts: 2 },
        ]),
      { what: 'both deliveries dead-lettered after their second attempt' },
    );
    expect(
      await rig.query(
        `SELECT consumer, attempt, outcome FROM outbox.delivery_attempts WHERE message_id = $1 ORDER BY consumer, attempt`,
        [id],
      ),
    ).toEqual([
      { consumer: 'unit.apply-entry', attempt: 1, outcome: 'failed' },
      { consumer: 'unit.apply-entry', attempt: 2, outcome: 'dead' },
      { consumer: 'unit.audit-entry', attempt: 1, outcome: 'failed' },
      { consumer: 'unit.audit-entry', attempt: 2, outcome: 'dead' },
    ]);
  });

  it('when OUTBOX_LOCAL_IN_FLIGHT deliveries run here, then the next message goes through the relay', async () => {
    let release!: () => void;
    holding = new Promise<void>((resolve) => (release = resolve));
    const [held] = await rig.publish(entry(7));
    expect((await stateOf(held)).claimed).toBe(rig.lease.processId);
    await eventually(() => expect(rig.localRoutes.figures().inFlight).toBe(2));

    const [next] = await rig.publish(entry());
    expect(await stateOf(next)).toEqual({ published: false, claimed: null });
    release();
    holding = undefined;
    await rig.relay.drain(() => false);
    await eventually(() => expect(rig.localRoutes.figures().inFlight).toBe(0));
  });

  it('when a local delivery is still running past the redelivery wait, then the sweep leaves it to its process, and each consumer runs it once', async () => {
    let release!: () => void;
    holding = new Promise<void>((resolve) => (release = resolve));
    const [id] = await rig.publish(entry(7));
    const { entryId } = (
      await rig.query<{ payload: EntryPayload }>(`SELECT payload FROM outbox.messages WHERE id = $1`, [id])
    )[0].payload;
    await eventually(() => expect(rig.localRoutes.figures().inFlight).toBe(2));

    // Overdue for the sweep, as a delivery held up (an email's record waiting for Postgres) would be.
    await rig.query(`UPDATE outbox.messages SET published_at = published_at - interval '1 hour' WHERE id = $1`, [id]);
    await rig.localRoutes.giveBackForgotten();
    await rig.sweeper.sweepAll();
    expect(await jobsInRedis()).toBe(0);
    expect((await stateOf(id)).claimed).toBe(rig.lease.processId);

    release();
    holding = undefined;
    await eventually(async () => expect(await effects(entryId)).toEqual(['unit.apply-entry', 'unit.audit-entry']));
    await eventually(() => expect(rig.localRoutes.figures().inFlight).toBe(0));
    await rig.sweeper.sweepAll();
    expect(
      await rig.query(`SELECT delivered_at IS NOT NULL AS delivered FROM outbox.messages WHERE id = $1`, [id]),
    ).toEqual([{ delivered: true }]);
    expect(
      calls
        .filter((call) => call.entryId === entryId)
        .map((call) => call.consumer)
        .sort(),
    ).toEqual(['unit.apply-entry', 'unit.audit-entry']);
    expect(await jobsInRedis()).toBe(0);
  });

  it('when a local delivery fails and Redis does not take it, then the claim is given back and the sweep sends it on', async () => {
    const push = jest.spyOn(rig.queues, 'push').mockRejectedValueOnce(new Error('Redis is out of reach'));
    try {
      const [id] = await rig.publish(entry(13));
      await eventually(async () => expect(await stateOf(id)).toEqual({ published: true, claimed: null }), {
        what: 'the claim given back',
      });
      expect(push).toHaveBeenCalled();
      await rig.query(`UPDATE outbox.messages SET published_at = published_at - interval '1 hour' WHERE id = $1`, [id]);
      await rig.sweeper.sweepAll();
      await eventually(
        async () =>
          expect(
            await rig.query(`SELECT consumer FROM outbox.dead_letters WHERE message_id = $1 ORDER BY consumer`, [id]),
          ).toEqual([{ consumer: 'unit.apply-entry' }, { consumer: 'unit.audit-entry' }]),
        { what: 'both deliveries going on through the queues to their dead letters' },
      );
    } finally {
      push.mockRestore();
    }
  });

  it('when a claim is not in hand in its live process (a COMMIT whose answer was lost), then the process gives it back, and the sweep sends it on', async () => {
    hooks.dying = true; // the process takes the transaction as failed: it hands nothing over
    const [id] = await rig.publish(entry());
    hooks.dying = false;
    const { entryId } = (
      await rig.query<{ payload: EntryPayload }>(`SELECT payload FROM outbox.messages WHERE id = $1`, [id])
    )[0].payload;
    await rig.localRoutes.giveBackForgotten();
    expect(await stateOf(id)).toEqual({ published: true, claimed: rig.lease.processId });

    // Older than twice the sweep's wait.
    await rig.query(`UPDATE outbox.messages SET published_at = published_at - interval '1 hour' WHERE id = $1`, [id]);
    await rig.localRoutes.giveBackForgotten();
    expect(await stateOf(id)).toEqual({ published: true, claimed: null });
    await rig.sweeper.sweepAll();
    await eventually(async () => expect(await effects(entryId)).toEqual(['unit.apply-entry', 'unit.audit-entry']), {
      what: 'the message handled through the queues',
    });
  });

  it('when the process dies after its commit, before the hand-over, then the sweep leaves its claim while it lives and takes it over once its lease ran out', async () => {
    hooks.dying = true;
    const [id] = await rig.publish(entry());
    hooks.dying = false;
    const { entryId } = (
      await rig.query<{ payload: EntryPayload }>(`SELECT payload FROM outbox.messages WHERE id = $1`, [id])
    )[0].payload;
    expect(await stateOf(id)).toEqual({ published: true, claimed: rig.lease.processId });

    // Alive: its claim is its own to finish.
    await rig.sweeper.sweepAll();
    expect(await effects(entryId)).toEqual([]);

    // Gone: unseen for its lease.
    rig.localRoutes.stop();
    await rig.query(`UPDATE outbox.processes SET seen_at = seen_at - make_interval(secs => $1)`, [
      (2 * LEASE_MS) / 1_000,
    ]);
    await rig.sweeper.sweepAll();
    await eventually(async () => expect(await effects(entryId)).toEqual(['unit.apply-entry', 'unit.audit-entry']), {
      what: 'the claim taken over and handled through the queues',
    });
    expect(calls.filter((call) => call.entryId === entryId)).toHaveLength(2);
  });
});
