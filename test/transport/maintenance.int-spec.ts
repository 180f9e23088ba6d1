import { randomUUID } from 'node:crypto';
import { Housekeeping } from '../../src/infra/outbox/housekeeping';
import { LogicalRelay } from '../../src/infra/outbox/relaying/logical-relay';
import { eventually } from '../support/eventually';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { logs, TestApp } from '../support/test-app';
import { TEST_DATABASE_SESSIONS } from '../support/test-database';

describe('Housekeeping and lost Postgres connections', () => {
  let app: TestApp;
  const effects = async (entryIds: string[]) =>
    (
      await app.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM fixture.effects WHERE entry_id = ANY($1::uuid[])`,
        [entryIds],
      )
    )[0].n;

  beforeAll(async () => {
    app = await TestApp.start({
      imports: [LedgerFixtureModule],
      env: { OUTBOX_RELAY_INTERVAL_MS: '100', OUTBOX_REDELIVER_AFTER_MS: '200', OUTBOX_SWEEP_INTERVAL_MS: '100' },
    });
  });
  afterAll(() => app.stop());

  it('when records are older than the retention, then housekeeping purges them, and never an undelivered message', async () => {
    const delivered = randomUUID();
    await app.get(Ledger).record(delivered, 1);
    await eventually(async () => {
      const [row] = await app.database.query<{ delivered_at: Date | null }>(
        `SELECT delivered_at FROM outbox.messages WHERE aggregate_id = $1 AND type = 'ledger.entry-recorded.v1'`,
        [delivered],
      );
      expect(row.delivered_at).not.toBeNull();
    });
    const stuck = randomUUID();
    const stuckId = randomUUID();
    await app.database.query(
      `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id, published_at, created_at)
       VALUES ($1, 'event', 'ledger.entry-recorded.v1', $2, '{}', 'x', now() - interval '3 hours', now() - interval '3 hours')`,
      [stuckId, stuck],
    );
    await app.database.query(
      `UPDATE outbox.messages SET delivered_at = now() - interval '2 hours' WHERE aggregate_id = $1`,
      [delivered],
    );
    await app.database.query(
      `UPDATE outbox.inbox SET handled_at = now() - interval '2 hours'
        WHERE message_id IN (SELECT id FROM outbox.messages WHERE aggregate_id = ANY($1))`,
      [[delivered, stuck]],
    );

    const purged = await app.get(Housekeeping).purge(1);

    expect(purged.messages).toBeGreaterThanOrEqual(2);
    expect(await app.database.query(`SELECT 1 FROM outbox.messages WHERE aggregate_id = $1`, [delivered])).toEqual([]);
    // (Its dead letters, for a payload that breaks its contract, are announced under the same aggregate.)
    expect(await app.database.query(`SELECT 1 FROM outbox.messages WHERE id = $1`, [stuckId])).toHaveLength(1);
  });

  it('when a crash is older than the retention and its delivery has not ended, then housekeeping keeps it: it still counts toward the limit', async () => {
    const entryId = randomUUID();
    await app.get(Ledger).record(entryId, 1);
    const [{ id }] = await app.database.query<{ id: string }>(
      `SELECT id FROM outbox.messages WHERE aggregate_id = $1 AND type = 'ledger.entry-recorded.v1'`,
      [entryId],
    );
    await eventually(async () =>
      expect(await app.database.query(`SELECT 1 FROM outbox.inbox WHERE message_id = $1`, [id])).toHaveLength(2),
    );
    // Crashes charged two hours ago: one of a consumer that has not handled the message yet (its
    // inbox row is not there), one of a consumer that did, after it.
    await app.database.query(`DELETE FROM outbox.inbox WHERE message_id = $1 AND consumer = 'audit.note-entry'`, [id]);
    await app.database.query(
      `INSERT INTO outbox.delivery_attempts (message_id, consumer, correlation_id, attempt, outcome, error, at)
       SELECT $1, c, 'x', 1, 'crashed', 'the worker died', now() - interval '2 hours'
         FROM unnest(ARRAY['audit.note-entry', 'ledger.apply-entry']) AS c`,
      [id],
    );

    await app.get(Housekeeping).purge(1);

    expect(
      await app.database.query(
        `SELECT consumer FROM outbox.delivery_attempts WHERE message_id = $1 AND outcome = 'crashed'`,
        [id],
      ),
    ).toEqual([{ consumer: 'audit.note-entry' }]);
  });

  it('when Postgres drops every connection of the app, then the relay (its listener, or its reader of the slot) and the workers carry on', async () => {
    const before = Array.from({ length: 5 }, () => randomUUID());
    for (const entryId of before) await app.get(Ledger).record(entryId, 1);
    await eventually(async () => expect(await effects(before)).toBe(15));

    await app.database.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name <> ''
          AND application_name NOT LIKE 'pg%' AND application_name <> $1`,
      [TEST_DATABASE_SESSIONS],
    );
    const after = Array.from({ length: 5 }, () => randomUUID());
    for (const entryId of after) {
      await eventually(() => app.get(Ledger).record(entryId, 1), { what: 'a write after the connections dropped' });
    }

    await eventually(async () => expect(await effects(after)).toBe(15), { timeoutMs: 20_000 });
    if (process.env.TEST_OUTBOX_RELAY === 'logical') {
      // No listener with the logical relay: its reader lost its lock's session, and reads again.
      await eventually(() => {
        expect(logs.lines.filter((l) => String(l.msg).includes("Reading the outbox's inserts")).length).toBe(2);
        expect(app.get(LogicalRelay).reading).toBe(true);
      });
    } else {
      await eventually(() =>
        expect(logs.lines.some((l) => String(l.msg).includes('Listening on outbox_messages again'))).toBe(true),
      );
    }
  });
});
