import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/** One series of the Prometheus text at GET /metrics. */
async function scrape(app: TestApp, name: string, labels = ''): Promise<number> {
  const { text } = await app
    .http()
    .get('/metrics')
    .expect(200)
    .expect('content-type', /text\/plain/);
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  if (!line) throw new Error(`no series ${name}{${labels}} in /metrics`);
  return Number(line.split(' ').pop());
}

describe('Metrics, roles and the faults API', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const start = async (roles: string) => {
    const app = await TestApp.start({
      imports: [LedgerFixtureModule],
      database,
      queuePrefix: apps[0]?.queuePrefix,
      env: { APP_ROLES: roles, OUTBOX_RELAY_INTERVAL_MS: '50' },
    });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await database.drop();
  });

  it('when nothing relays or consumes, then the oldest pending message and the oldest waiting job age in /metrics', async () => {
    const api = await start('api');
    await api.get(Ledger).record(randomUUID(), 1);

    const firstPendingAge = await scrape(api, 'outbox_oldest_pending_age_seconds');
    await eventually(async () =>
      expect(await scrape(api, 'outbox_oldest_pending_age_seconds')).toBeGreaterThan(firstPendingAge + 0.2),
    );
    expect(await scrape(api, 'outbox_pending_messages')).toBe(1);

    const relay = await start('relay');
    await eventually(async () => expect(await scrape(api, 'outbox_pending_messages')).toBe(0));
    expect(await scrape(api, 'queue_jobs', 'queue="ledger",state="waiting"')).toBe(1);
    const firstWaitingAge = await scrape(api, 'queue_oldest_waiting_age_seconds', 'queue="ledger"');
    await eventually(async () =>
      expect(await scrape(api, 'queue_oldest_waiting_age_seconds', 'queue="ledger"')).toBeGreaterThan(
        firstWaitingAge + 0.2,
      ),
    );
    void relay;

    await start('worker');
    await eventually(async () => expect(await scrape(api, 'queue_jobs', 'queue="ledger",state="waiting"')).toBe(0));
    await eventually(async () =>
      expect(await scrape(api, 'queue_oldest_waiting_age_seconds', 'queue="ledger"')).toBe(0),
    );
  });

  it('when a process does not run the api role, then it answers /health and /metrics and nothing else', async () => {
    const worker = apps.find((app) => app !== apps[0])!;

    await worker.http().get('/health').expect(200);
    await worker.http().get('/metrics').expect(200);
    const refused = await worker
      .http()
      .post('/fixture/entries')
      .send({ entryId: randomUUID(), amountCents: 1 })
      .expect(404);

    expect(refused.body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'This process does not run the api role',
    });
  });

  it('when fault rules are set over HTTP, then they are validated against the declared points', async () => {
    const api = apps[0];
    const admin = (request: ReturnType<ReturnType<TestApp['http']>['put']>) =>
      request.set('authorization', `Bearer ${ADMIN_TOKEN}`);

    const { body: listed } = await admin(api.http().get('/admin/faults')).expect(200);
    expect(listed.points.map((p: { point: string }) => p.point)).toEqual(
      expect.arrayContaining(['relay.after-push', 'consumer:ledger.apply-entry', 'consumer:audit.note-entry']),
    );

    const refused = await admin(api.http().put('/admin/faults'))
      .send({ rules: [{ point: 'consumer:nobody', action: 'fail' }] })
      .expect(400);
    expect(refused.body.details).toEqual([expect.stringContaining('unknown point "consumer:nobody"')]);
    await admin(api.http().put('/admin/faults'))
      .send({ rules: [{ point: 'relay.after-push', action: 'explode' }] })
      .expect(400);
    // Only a step's or a compensation's work belongs to one correlation; a relay batch carries many.
    const uncorrelated = await admin(api.http().put('/admin/faults'))
      .send({ rules: [{ point: 'relay.after-push', action: 'fail', correlationId: 'c-1' }] })
      .expect(400);
    expect(uncorrelated.body.details).toEqual([
      'rules.0.correlationId: only step and compensation points belong to one correlation',
    ]);
    expect((await admin(api.http().get('/admin/faults')).expect(200)).body.rules).toEqual([]);

    const { body: set } = await admin(api.http().put('/admin/faults'))
      .send({ rules: [{ point: 'consumer:ledger.apply-entry', action: 'fail', times: 2 }] })
      .expect(200);
    expect(set.rules).toEqual([{ point: 'consumer:ledger.apply-entry', action: 'fail', times: 2, hits: 0 }]);
    await admin(api.http().delete('/admin/faults')).expect(200);
    expect((await admin(api.http().get('/admin/faults')).expect(200)).body.rules).toEqual([]);
  });

  it('when fault injection is off or no admin token is set, then the admin endpoints answer 404', async () => {
    const locked = await TestApp.start({ database, env: { FAULT_INJECTION: 'false', APP_ROLES: 'api' } });
    const open = await TestApp.start({ database, env: { ADMIN_TOKEN: '', APP_ROLES: 'api' } });
    try {
      await locked.http().get('/admin/faults').set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(404);
      await locked.http().get('/admin/dead-letters').set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
      await open.http().get('/admin/dead-letters').set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(404);
    } finally {
      await locked.stop();
      await open.stop();
    }
  });
});
