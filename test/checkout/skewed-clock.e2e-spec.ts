import { AppProcess } from '../support/app-process';
import { eventually } from '../support/eventually';
import { ProcessClient } from '../support/process-client';
import { ADMIN_TOKEN, newQueuePrefix } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

const HOUR = 3_600_000;

/**
 * Deadlines are computed and compared by one clock, the database's: an app host whose clock is
 * off by an hour neither resends a saga step early (or never) nor declares a progressing
 * checkout stalled.
 */
describe('An app whose clock is an hour off the database', () => {
  const apps: AppProcess[] = [];
  const databases: TestDatabase[] = [];

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all(databases.map((database) => database.drop()));
  });

  async function skewedApp(skewMs: number, env: Record<string, string>): Promise<ProcessClient> {
    const database = await TestDatabase.create();
    databases.push(database);
    const app = await AppProcess.start(
      {
        DATABASE_URL: database.url,
        QUEUE_PREFIX: newQueuePrefix(),
        ADMIN_TOKEN,
        FAULT_INJECTION: 'true',
        LOG_LEVEL: 'warn',
        OUTBOX_RELAY_INTERVAL_MS: '100',
        CLOCK_SKEW_MS: String(skewMs),
        ...env,
      },
      [process.execPath, '-r', '@swc-node/register', '-r', './test/support/skewed-clock.ts', 'src/main.ts'],
    );
    apps.push(app);
    await eventually(async () => expect((await app.get('/health')).status).toBe(200), { timeoutMs: 30_000 });
    return new ProcessClient(app.url);
  }

  it('when it is an hour behind, then an unanswered saga step is resent one step timeout later, not at once', async () => {
    const client = await skewedApp(-HOUR, { SAGA_STEP_TIMEOUT_MS: '3000', SAGA_SWEEP_INTERVAL_MS: '100' });
    await client.setFaults([{ point: 'step:identity.verify-user', action: 'timeout-before', times: 1 }]);
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, mode: 'orchestration' });

    await eventually(async () => expect((await client.get(id)).status).toBe('COMPLETED'), { timeoutMs: 20_000 });
    // From the statement that set the deadline (the saga's insert, whose created_at is read from the
    // same clock in the same statement) to the sweeper's entry; the saga's first log entry comes a
    // few milliseconds after that insert under load, so it would be the wrong start.
    const [{ waited }] = await databases[0].query<{ waited: number }>(
      `SELECT extract(epoch FROM (SELECT min(at) FROM checkout.saga_log WHERE saga_id = $1 AND input = 'deadline')
                            - (SELECT created_at FROM checkout.sagas WHERE id = $1))::float * 1000 AS waited`,
      [id],
    );
    expect(waited).toBeGreaterThanOrEqual(3_000 - 1);
  });

  it('when it is an hour ahead, then a choreographed checkout goes to INTERVENTION only after the stall window', async () => {
    const client = await skewedApp(HOUR, { CHECKOUT_STALLED_AFTER_MS: '4000' });
    // The welcome email is taken and never done: the checkout really stalls, after four steps of progress.
    await client.setFaults([{ point: 'step:notifications.send-welcome-email', action: 'timeout-before', times: 1 }]);
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, mode: 'choreography' });

    const checkout = await eventually(
      async () => {
        const read = await client.get(id);
        expect(read.status).toBe('INTERVENTION');
        return read;
      },
      { timeoutMs: 20_000 },
    );
    expect(checkout.step).toBe('notifications.send-welcome-email');
    expect(Date.parse(checkout.updatedAt) - Date.parse(checkout.createdAt)).toBeGreaterThanOrEqual(4_000);
  });
});
