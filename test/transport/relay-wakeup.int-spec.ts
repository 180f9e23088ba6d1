import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/** The relays' timer is set to a minute here: only a wake-up signal can explain a prompt relay. */
describe('Waking the relay', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const slowTimer = { OUTBOX_RELAY_INTERVAL_MS: '60000' };
  const published = async (entryId: string) => {
    const [row] = await database.query<{ published_at: Date | null }>(
      `SELECT published_at FROM outbox.messages WHERE aggregate_id = $1`,
      [entryId],
    );
    return row?.published_at ?? null;
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await database.drop();
  });

  it('when a process that runs a relay commits outbox rows, then its own relay is woken at once', async () => {
    const app = await TestApp.start({ imports: [LedgerFixtureModule], database, env: { ...slowTimer } });
    apps.push(app);
    await eventually(() => app.http().get('/health').expect(200)); // its relay has started and drained
    const entryId = randomUUID();

    await app.get(Ledger).record(entryId, 1);

    await eventually(async () => expect(await published(entryId)).not.toBeNull(), { timeoutMs: 3_000 });
  });

  it('when an api-only process commits outbox rows, then relays elsewhere hear of it by NOTIFY', async () => {
    const relay = apps[0];
    const api = await TestApp.start({
      imports: [LedgerFixtureModule],
      database,
      queuePrefix: relay.queuePrefix,
      env: { ...slowTimer, APP_ROLES: 'api' },
    });
    apps.push(api);
    const entryIds = [randomUUID(), randomUUID(), randomUUID()];

    for (const entryId of entryIds) await api.get(Ledger).record(entryId, 1);

    for (const entryId of entryIds) {
      await eventually(async () => expect(await published(entryId)).not.toBeNull(), { timeoutMs: 3_000 });
    }
  });
});
