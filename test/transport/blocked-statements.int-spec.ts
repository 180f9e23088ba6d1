import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Inbox, type InboxOutcome } from '../../src/infra/outbox/consuming/inbox';
import { eventually } from '../support/eventually';
import { ledgerDelivery } from '../support/inbox-delivery';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { TestApp } from '../support/test-app';

/**
 * A consumer transaction that waits on a lock held by a stuck session must not hold the others of
 * its batch with it. No relay and no workers here: the test hands the inbox one batch itself.
 */
describe('Consumer transactions against a stuck session', () => {
  let app: TestApp;
  let stuck: Client;

  /** One delivery of a recorded entry to a handler that updates the entry's row. */
  const deliveryOf = (entryId: string) => {
    const txHost = app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    return ledgerDelivery(app, entryId, () =>
      txHost.tx.query(`UPDATE fixture.entries SET amount_cents = amount_cents + 1 WHERE id = $1`, [entryId]),
    );
  };

  beforeAll(async () => {
    app = await TestApp.start({
      imports: [LedgerFixtureModule],
      env: { APP_ROLES: 'api', DATABASE_LOCK_TIMEOUT_MS: '300', DATABASE_STATEMENT_TIMEOUT_MS: '2000' },
    });
    stuck = new Client({ connectionString: app.database.url });
    await stuck.connect();
  });
  afterAll(async () => {
    await stuck.end();
    await app.stop();
  });

  it('when one delivery of a batch waits on a lock held elsewhere, then the others commit, and it succeeds once the lock is gone', async () => {
    const [blocked, ...healthy] = [randomUUID(), randomUUID(), randomUUID()];
    for (const entryId of [blocked, ...healthy]) await app.get(Ledger).record(entryId, 1);
    const items = await Promise.all([blocked, ...healthy].map(deliveryOf));
    const timeoutsBefore = await metricValue(app, 'outbox_transaction_timeouts_total', { stage: 'consumer' });
    await stuck.query('BEGIN');
    await stuck.query(`SELECT 1 FROM fixture.entries WHERE id = $1 FOR UPDATE`, [blocked]);

    // In one turn of the event loop: one batch, one transaction.
    const settled: Array<InboxOutcome | Error | undefined> = [];
    const inbox = app.get(Inbox);
    await app.get(ClsService).run(async () => {
      items.forEach((item, i) =>
        inbox.handle(item).then(
          (outcome) => (settled[i] = outcome),
          (error: Error) => (settled[i] = error),
        ),
      );
    });

    await eventually(() => expect(settled.slice(1)).toEqual(['ok', 'ok']), { timeoutMs: 5_000 });
    await eventually(() => expect(String(settled[0])).toMatch(/lock timeout/));
    expect(await metricValue(app, 'outbox_transaction_timeouts_total', { stage: 'consumer' })).toBeGreaterThan(
      timeoutsBefore,
    );

    await stuck.query('ROLLBACK');
    await expect(app.get(ClsService).run(() => inbox.handle(items[0]))).resolves.toBe('ok');
    const rows = await app.database.query<{ id: string; amount_cents: number }>(
      `SELECT id, amount_cents FROM fixture.entries WHERE id = ANY($1::uuid[]) ORDER BY id`,
      [[blocked, ...healthy]],
    );
    expect(rows.map((row) => row.amount_cents)).toEqual([2, 2, 2]);
  });
});
