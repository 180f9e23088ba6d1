import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AnsweredFailure } from '../../src/infra/outbox';
import { Inbox, type InboxDelivery } from '../../src/infra/outbox/consuming/inbox';
import { MESSAGE_COLUMNS, type MessageRow, toMessage } from '../../src/infra/outbox/message-row';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { ledgerDelivery } from '../support/inbox-delivery';
import { TestApp } from '../support/test-app';

/**
 * Deliveries that arrive together share one transaction. A handler whose work fails but has an
 * answer (a command's failure event) throws AnsweredFailure: its writes go with its transaction,
 * and its answer commits with its inbox row instead. No relay and no workers here: the test hands
 * the inbox one batch itself.
 */
describe('A batch of deliveries', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await TestApp.start({ imports: [LedgerFixtureModule], env: { APP_ROLES: 'api' } });
  });
  afterAll(() => app.stop());

  it('when it fails in a shared batch, then its writes are undone, its answer commits once with its inbox row, and the others commit', async () => {
    const [failing, ...healthy] = [randomUUID(), randomUUID(), randomUUID()];
    for (const entryId of [failing, ...healthy]) await app.get(Ledger).record(entryId, 1);
    const txHost = app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    const touch = (entryId: string) =>
      txHost.tx.query(`UPDATE fixture.entries SET amount_cents = amount_cents + 1 WHERE id = $1`, [entryId]);
    const runs = { work: 0, answer: 0 };
    const items = await Promise.all([
      ledgerDelivery(app, failing, async () => {
        runs.work += 1;
        await touch(failing);
        throw new AnsweredFailure(new Error('the work failed after writing'), async () => {
          runs.answer += 1;
          await txHost.tx.query(`INSERT INTO fixture.effects (consumer, entry_id) VALUES ('the answer', $1)`, [
            failing,
          ]);
        });
      }),
      ...healthy.map((entryId) => ledgerDelivery(app, entryId, () => touch(entryId))),
    ]);
    const inbox = app.get(Inbox);
    const cls = app.get(ClsService);

    // In one turn of the event loop: one batch, one transaction, which the failure rolls back.
    const outcomes = await cls.run(() => Promise.all(items.map((item) => inbox.handle(item))));

    expect(outcomes).toEqual(['ok', 'ok', 'ok']);
    const amounts = await app.database.query<{ id: string; amount_cents: number }>(
      `SELECT id, amount_cents FROM fixture.entries WHERE id = ANY($1::uuid[])`,
      [[failing, ...healthy]],
    );
    expect(Object.fromEntries(amounts.map((row) => [row.id, row.amount_cents]))).toEqual({
      [failing]: 1,
      [healthy[0]]: 2,
      [healthy[1]]: 2,
    });
    const answers = await app.database.query(`SELECT 1 FROM fixture.effects WHERE entry_id = $1`, [failing]);
    expect(answers).toHaveLength(1);
    const inboxRows = await app.database.query(
      `SELECT 1 FROM outbox.inbox WHERE message_id = $1 AND consumer = 'ledger.touch-entry'`,
      [items[0].id],
    );
    expect(inboxRows).toHaveLength(1);
    // Once in the shared batch and once alone; the answer, only once the work is known to fail alone.
    expect(runs).toEqual({ work: 2, answer: 1 });

    // A second copy is a duplicate: neither the work nor the answer runs again.
    await expect(cls.run(() => inbox.handle(items[0]))).resolves.toBe('duplicate');
    expect(runs).toEqual({ work: 2, answer: 1 });
  });

  it('when a batch holds several aggregates, then their deliveries run in the order of their aggregates, and each gets its own outcome', async () => {
    const entries = [randomUUID(), randomUUID(), randomUUID()].sort().reverse();
    for (const entryId of entries) await app.get(Ledger).record(entryId, 1);
    const ran: string[] = [];
    const items = await Promise.all(
      entries.map((entryId) =>
        ledgerDelivery(app, entryId, async () => {
          ran.push(entryId);
        }),
      ),
    );
    const inbox = app.get(Inbox);

    // The second copy of the last entry's delivery, in the same batch, is a duplicate.
    const outcomes = await app
      .get(ClsService)
      .run(() => Promise.all([...items, items[2]].map((item) => inbox.handle(item))));

    expect(ran).toEqual([...entries].reverse());
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'duplicate']);
  });

  it("when its message is at hand and its consumer takes repeats, then its inbox row rides with the handler's first statement, and commits with its writes or not at all", async () => {
    const [recordedFirst, entryId, failingId] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [recordedFirst, entryId, failingId]) await app.get(Ledger).record(id, 1);
    const txHost = app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    const inbox = app.get(Inbox);
    const cls = app.get(ClsService);
    const touch = async (id: string) => {
      await txHost.tx.query(`SELECT amount_cents FROM fixture.entries WHERE id = $1`, [id]);
      await txHost.tx.query(`UPDATE fixture.entries SET amount_cents = amount_cents + 1 WHERE id = $1`, [id]);
    };
    // As the local bus hands it over: the message from the transaction that wrote it.
    const atHand = async (id: string, handle: () => Promise<void>) => {
      const item = await ledgerDelivery(app, id, handle);
      const [row] = await app.database.query<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM outbox.messages WHERE id = $1`,
        [item.id],
      );
      return { ...item, message: toMessage(row), subscription: { ...item.subscription, dedup: 'handler' as const } };
    };
    const first = await ledgerDelivery(app, recordedFirst, () => touch(recordedFirst));
    const item = await atHand(entryId, () => touch(entryId));
    const failing = await atHand(failingId, async () => {
      await touch(failingId);
      throw new Error('the work failed after writing');
    });

    const trips = async (delivery: InboxDelivery) => {
      const counted = await roundTripsOf(delivery.id, () => cls.run(() => inbox.handle(delivery)));
      return [counted.outcome, counted.trips];
    };
    expect(await trips(first)).toEqual(['ok', 4]); // BEGIN and the record; the read; the update; COMMIT
    expect(await trips(item)).toEqual(['ok', 3]); // BEGIN, the record and the read; the update; COMMIT
    // A repeat runs the handler again (it takes repeats), and is told a duplicate.
    expect(await trips(item)).toEqual(['duplicate', 3]);
    await expect(cls.run(() => inbox.handle(failing))).rejects.toThrow('the work failed after writing');

    const state = await app.database.query<{ id: string; amount_cents: number; inbox: number }>(
      `SELECT e.id, e.amount_cents,
              (SELECT count(*)::int FROM outbox.inbox i JOIN outbox.messages m ON m.id = i.message_id
                WHERE m.aggregate_id = e.id::text AND i.consumer = 'ledger.touch-entry') AS inbox
         FROM fixture.entries e WHERE e.id = ANY($1::uuid[])`,
      [[entryId, failingId]],
    );
    expect(Object.fromEntries(state.map(({ id, ...rest }) => [id, rest]))).toEqual({
      [entryId]: { amount_cents: 3, inbox: 1 },
      [failingId]: { amount_cents: 1, inbox: 0 },
    });
  });
});

/**
 * Runs a delivery of `messageId`, counting the round trips of the connection its transaction ran
 * on, from the write that carried its inbox record (opened by the BEGIN before it) to its COMMIT.
 * A statement that shares a write (AppPgClient.sharesAWrite) makes none.
 */
async function roundTripsOf<T>(messageId: string, run: () => Promise<T>): Promise<{ outcome: T; trips: number }> {
  const original = Client.prototype.query as unknown as (this: object, ...args: unknown[]) => unknown;
  const ours = new Set<object>();
  let trips = 0;
  let ended = false;
  const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: object, ...args: unknown[]) {
    const [config, values] = args as [string | { text?: string; values?: unknown[] }, unknown[] | undefined];
    const text = typeof config === 'string' ? config : (config.text ?? '');
    const parameters = typeof config === 'string' ? values : config.values;
    if (
      ours.size === 0 &&
      text.includes('INSERT INTO outbox.inbox') &&
      JSON.stringify(parameters).includes(messageId)
    ) {
      ours.add(this);
      trips = 1; // the write the BEGIN before it opened
    } else if (ours.has(this) && !ended && (this as { sharesAWrite?: boolean }).sharesAWrite !== true) trips += 1;
    if (ours.has(this) && /^\s*(COMMIT|ROLLBACK)/i.test(text)) ended = true;
    return original.apply(this, args);
  } as never);
  try {
    return { outcome: await run(), trips };
  } finally {
    spy.mockRestore();
  }
}
