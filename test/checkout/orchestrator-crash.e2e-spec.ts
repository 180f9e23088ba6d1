import { AppProcess } from '../support/app-process';
import { eventually } from '../support/eventually';
import { ProcessClient } from '../support/process-client';
import { ADMIN_TOKEN, newQueuePrefix } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/**
 * Nothing about a saga lives only in a process's memory: an orchestrator killed mid-saga (SIGKILL,
 * no chance to clean up) leaves its sagas to any other instance, which finishes each exactly once.
 */
describe('An orchestrator killed in the middle of its sagas', () => {
  let database: TestDatabase;
  const processes: AppProcess[] = [];

  beforeAll(async () => {
    database = await TestDatabase.create();
  });
  afterAll(async () => {
    for (const app of processes) await app.stop();
    await database.drop();
  });

  const env = () => ({
    DATABASE_URL: database.url,
    QUEUE_PREFIX: newQueuePrefix(),
    ADMIN_TOKEN,
    FAULT_INJECTION: 'true',
    LOG_LEVEL: 'warn',
    OUTBOX_RELAY_INTERVAL_MS: '100',
    OUTBOX_JOB_LOCK_MS: '1000',
    SAGA_STEP_TIMEOUT_MS: '300',
    SAGA_SWEEP_INTERVAL_MS: '100',
    SAGA_PIVOT_ATTEMPTS: '20',
  });
  it('when a second instance takes over, then every saga completes, each effect exactly once', async () => {
    const shared = env();
    const first = await AppProcess.start(shared);
    processes.push(first);
    await eventually(async () => expect((await first.get('/health')).status).toBe(200), { timeoutMs: 30_000 });
    // The first instance keeps its sagas waiting at the pivot: it sends the capture, which never answers.
    const client = new ProcessClient(first.url);
    await client.setFaults([{ point: 'step:billing.capture-payment', action: 'timeout-before' }]);
    const buyer = await client.createUser();
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await client.start({ userId: buyer.id, mode: 'orchestration' }));
    await eventually(
      async () => {
        const [{ n }] = await database.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM checkout.sagas WHERE id = ANY($1) AND current_step = 'billing.capture-payment'`,
          [ids],
        );
        expect(n).toBe(ids.length);
      },
      { timeoutMs: 30_000 },
    );

    first.signal('SIGKILL');
    expect(await first.exitCode()).toBeNull();
    const second = await AppProcess.start({ ...shared });
    processes.push(second);

    await eventually(
      async () => {
        const rows = await database.query<{ status: string }>(
          `SELECT status FROM checkout.checkouts WHERE id = ANY($1)`,
          [ids],
        );
        expect(rows.map((row) => row.status)).toEqual(ids.map(() => 'COMPLETED'));
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const counts = await database.query<{ captured: number; active: number; emails: number }>(
      `SELECT (SELECT count(*) FROM billing.payments p WHERE p.checkout_id = c.id AND p.status = 'captured')::int AS captured,
              (SELECT count(*) FROM content.entitlements e WHERE e.checkout_id = c.id AND e.status = 'active')::int AS active,
              (SELECT count(*) FROM notifications.emails m WHERE m.checkout_id = c.id)::int AS emails
         FROM checkout.checkouts c WHERE c.id = ANY($1)`,
      [ids],
    );
    expect(counts).toEqual(ids.map(() => ({ captured: 1, active: 1, emails: 1 })));
    // Checked by the survivor, which counts the money and the invoices at the participants.
    expect((await new ProcessClient(second.url).invariants()).violations).toEqual([]);
  });
});
