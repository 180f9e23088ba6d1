import type { InboxDelivery } from '../../src/infra/outbox/inbox';
import type { MessageHandler } from '../../src/infra/outbox/subscriptions';
import type { TestApp } from './test-app';

/**
 * The delivery of a recorded ledger entry's event (LedgerFixtureModule) as the inbox gets it, to a
 * handler of the test's own: for tests that hand the inbox a batch themselves, with no relay and
 * no workers.
 */
export async function ledgerDelivery(app: TestApp, entryId: string, handle: MessageHandler): Promise<InboxDelivery> {
  const [row] = await app.database.query<{ id: string; correlation_id: string; created_at: Date }>(
    `SELECT id, correlation_id, created_at FROM outbox.messages WHERE aggregate_id = $1`,
    [entryId],
  );
  return {
    delivery: {
      id: row.id,
      kind: 'event',
      type: 'ledger.entry-recorded.v1',
      aggregateId: entryId,
      correlationId: row.correlation_id,
      causationId: null,
      headers: {},
      createdAt: row.created_at.toISOString(),
      consumer: 'ledger.touch-entry',
      attempt: 1,
    },
    payload: {},
    handle,
    queue: 'ledger',
    exclusive: false,
    injectedFault: false,
    faultDecisions: new Map(),
  };
}
