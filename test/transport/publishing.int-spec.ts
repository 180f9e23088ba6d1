import { TransactionHost } from '@nestjs-cls/transactional';
import { randomUUID } from 'node:crypto';
import { CORRELATION_HEADER } from '../../src/infra/context/message-context';
import { OutboxPublisher, PublishOutsideTransactionError } from '../../src/infra/outbox';
import { eventually } from '../support/eventually';
import { EntryApplied, EntryRecorded, Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { logs, TestApp } from '../support/test-app';

describe('Publishing through the outbox', () => {
  let app: TestApp;
  const effects = (consumer: string, entryId: string) =>
    app.database
      .query<{ n: number }>(`SELECT count(*)::int AS n FROM fixture.effects WHERE consumer = $1 AND entry_id = $2`, [
        consumer,
        entryId,
      ])
      .then(([row]) => row.n);

  beforeAll(async () => {
    app = await TestApp.start({ imports: [LedgerFixtureModule], env: { OUTBOX_RELAY_INTERVAL_MS: '100' } });
  });
  afterAll(() => app.stop());

  it('when the business transaction rolls back after publishing, then neither the row nor the message exists', async () => {
    const entryId = randomUUID();

    await expect(app.get(Ledger).record(entryId, 100, true)).rejects.toThrow('failed after publishing');

    expect(await app.database.query(`SELECT 1 FROM fixture.entries WHERE id = $1`, [entryId])).toHaveLength(0);
    expect(await app.database.query(`SELECT 1 FROM outbox.messages WHERE aggregate_id = $1`, [entryId])).toHaveLength(
      0,
    );
  });

  it('when publishing outside a transaction, then it throws and writes nothing', async () => {
    const entryId = randomUUID();

    await expect(
      app.get(OutboxPublisher).publish(EntryRecorded, { entryId, amountCents: 1 }, { aggregateId: entryId }),
    ).rejects.toThrow(PublishOutsideTransactionError);

    expect(await app.database.query(`SELECT 1 FROM outbox.messages WHERE aggregate_id = $1`, [entryId])).toHaveLength(
      0,
    );
  });

  it('when a payload breaks its contract, then publishing throws before anything is written', async () => {
    const entryId = randomUUID();

    await expect(
      app
        .get(TransactionHost)
        .withTransaction(() =>
          app
            .get(OutboxPublisher)
            .publish(EntryRecorded, { entryId: 'not-a-uuid', amountCents: 1 }, { aggregateId: entryId }),
        ),
    ).rejects.toThrow(/entryId/);
  });

  it('when the transaction commits, then the row, its message and one effect per consumer follow', async () => {
    const entryId = randomUUID();

    await app.get(Ledger).record(entryId, 250);

    const [message] = await app.database.query<Record<string, unknown>>(
      `SELECT kind, type, aggregate_id, payload FROM outbox.messages WHERE aggregate_id = $1 AND type = $2`,
      [entryId, EntryRecorded.type],
    );
    expect(message).toEqual({
      kind: 'event',
      type: 'ledger.entry-recorded.v1',
      aggregate_id: entryId,
      payload: { entryId, amountCents: 250 },
    });
    await eventually(async () => {
      expect(await effects('ledger.apply-entry', entryId)).toBe(1);
      expect(await effects('audit.note-entry', entryId)).toBe(1);
      expect(await effects('audit.note-applied', entryId)).toBe(1);
    });
  });

  it('when a request carries a correlation id, then the second hop carries it on its outbox row and log lines', async () => {
    const entryId = randomUUID();
    const correlationId = `it-${randomUUID()}`;

    await app
      .http()
      .post('/fixture/entries')
      .set(CORRELATION_HEADER, correlationId)
      .send({ entryId, amountCents: 5 })
      .expect(202)
      .expect(CORRELATION_HEADER, correlationId);

    const [first] = await eventually(() =>
      app.database.query<{ id: string; correlation_id: string }>(
        `SELECT id, correlation_id FROM outbox.messages WHERE aggregate_id = $1 AND type = $2`,
        [entryId, EntryRecorded.type],
      ),
    );
    const [second] = await eventually(async () => {
      const rows = await app.database.query<{ correlation_id: string; causation_id: string }>(
        `SELECT correlation_id, causation_id FROM outbox.messages WHERE aggregate_id = $1 AND type = $2`,
        [entryId, EntryApplied.type],
      );
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(first.correlation_id).toBe(correlationId);
    expect(second).toEqual({ correlation_id: correlationId, causation_id: first.id });

    const line = await eventually(() => {
      const found = logs.lines.find((l) => String(l.msg).includes(`noted applied entry ${entryId}`));
      expect(found).toBeDefined();
      return found!;
    });
    expect(line.correlationId).toBe(correlationId);
    // The handler logs before its transaction commits the inbox row, so the row may come later.
    await eventually(async () => {
      const [inbox] = await app.database.query<{ correlation_id: string }>(
        `SELECT correlation_id FROM outbox.inbox WHERE consumer = 'audit.note-applied' AND correlation_id = $1`,
        [correlationId],
      );
      expect(inbox).toBeDefined();
    });
  });
});
