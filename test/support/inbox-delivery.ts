import type { InboxDelivery } from '../../src/infra/outbox/consuming/inbox';
import type { MessageHandler } from '../../src/infra/outbox/consuming/subscriptions';
import { EntryRecorded } from './fixtures/ledger.fixture';
import type { TestApp } from './test-app';

/**
 * The delivery of a recorded ledger entry's event (LedgerFixtureModule) as the inbox gets it, to a
 * handler of the test's own: for tests that hand the inbox a batch themselves, with no relay and
 * no workers.
 */
export async function ledgerDelivery(app: TestApp, entryId: string, handle: MessageHandler): Promise<InboxDelivery> {
  const [row] = await app.database.query<{ id: string }>(`SELECT id FROM outbox.messages WHERE aggregate_id = $1`, [
    entryId,
  ]);
  return {
    id: row.id,
    consumer: 'ledger.touch-entry',
    attempt: 1,
    subscription: {
      queue: 'ledger',
      exclusive: false,
      dedup: 'transport',
      contracts: [EntryRecorded],
      where: {},
      handle,
    },
  };
}
