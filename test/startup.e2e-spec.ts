import { Client } from 'pg';
import { MIGRATION_LOCK } from '../src/infra/database/run-migrations';
import { AppProcess, freePort } from './support/app-process';
import { eventually } from './support/eventually';
import { TcpProxy } from './support/tcp-proxy';
import { TestDatabase } from './support/test-database';
import { TEST_DATABASE_URL } from './support/test-env';

describe('Starting and stopping the app as a process', () => {
  let database: TestDatabase;
  const processes: AppProcess[] = [];
  const started = async (env: Record<string, string>) => {
    const app = await AppProcess.start(env);
    processes.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
  });
  afterEach(async () => {
    await Promise.all(processes.splice(0).map((app) => app.stop()));
  });
  afterAll(() => database.drop());

  it('when DATABASE_URL is not a postgres URL, then the app refuses to start and names the variable', async () => {
    const app = await started({
      DATABASE_URL: 'mysql://somewhere/checkout',
      PORT: '70000',
      CHECKOUT_MODE: 'sometimes',
    });

    expect(await app.exitCode()).toBe(1);
    expect(app.output.join('\n')).toContain('DATABASE_URL: must be a postgres:// URL');
    expect(app.output.join('\n')).toContain('PORT: must not be greater than 65535');
    expect(app.output.join('\n')).toContain('CHECKOUT_MODE: must be one of choreography, orchestration');
  });

  it('when Postgres does not answer at start, then the app serves /health 503 naming it, retries, and recovers', async () => {
    const port = await freePort();
    const unreachable = new URL(database.url);
    unreachable.port = String(port);
    const app = await started({ DATABASE_URL: unreachable.toString(), DATABASE_RETRY_MS: '200' });

    await app.waitForLine(/Postgres is not ready .*attempt 2/);
    // The first answers may come before the health check's own Redis connection is ready, and name
    // Redis too: wait for the answer that settles.
    await eventually(async () => {
      const health = await app.get('/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'down: postgres',
        details: { postgres: { status: 'down' }, redis: { status: 'up' } },
      });
    });

    const real = new URL(TEST_DATABASE_URL);
    const proxy = new TcpProxy(port, { host: real.hostname, port: Number(real.port || 5432) });
    await proxy.open();
    try {
      await eventually(async () => expect((await app.get('/health')).status).toBe(200));
      await app.waitForLine(/Postgres is answering after \d+ attempts/);
    } finally {
      await proxy.close();
    }
  });

  /** Runs `work` while a session of the test's own holds the migrations' advisory lock, as a replica migrating a long schema change does. */
  const whileAnotherReplicaMigrates = async (work: (release: () => Promise<unknown>) => Promise<void>) => {
    const replica = new Client({ connectionString: database.url });
    await replica.connect();
    try {
      await replica.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await work(() => replica.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]));
    } finally {
      await replica.end();
    }
  };

  it('when another replica holds the migrations at start, then the app serves /health 503 until they are done', async () => {
    await whileAnotherReplicaMigrates(async (release) => {
      const app = await started({ DATABASE_URL: database.url, DATABASE_START_WAIT_MS: '500' });

      // It listens anyway, and says why it is not healthy yet.
      const health = await eventually(
        async () => {
          const answer = await app.get('/health');
          expect(answer.body).toMatchObject({ message: 'down: postgres', details: { redis: { status: 'up' } } });
          return answer;
        },
        { timeoutMs: 30_000 },
      );
      expect(health.status).toBe(503);
      await app.waitForLine(/Postgres has not answered the start within 500 ms \(waiting for the migrations' lock\)/);

      await release();
      await app.untilHealthy(30_000);
    });
  }, 90_000);

  it('when it is stopped while it waits for the migrations, then it exits', async () => {
    await whileAnotherReplicaMigrates(async () => {
      const app = await started({ DATABASE_URL: database.url, DATABASE_START_WAIT_MS: '500' });
      await app.waitForLine(/waiting for the migrations' lock/);

      app.signal('SIGTERM');
      expect(await app.exitCode(20_000)).toBe(0);
    });
  }, 60_000);

  it('when Redis does not answer, then /health is 503 and names redis', async () => {
    const app = await started({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${await freePort()}` });

    // The first answer comes after the boot: seconds, and more than the default 15 on a loaded machine.
    const health = await eventually(
      async () => {
        const answer = await app.get('/health');
        expect(answer.status).toBe(503);
        return answer.body;
      },
      { timeoutMs: 60_000 },
    );
    // The queues' own check names them too once it has looked (it watches each queue's connections).
    expect(health).toMatchObject({
      statusCode: 503,
      message: expect.stringMatching(/^down: redis(, queues)?$/),
      details: { redis: { status: 'down' }, postgres: { status: 'up' } },
    });
  });

  it('when sent SIGTERM, then it closes HTTP, then everything else, and exits 0', async () => {
    const app = await started({ DATABASE_URL: database.url });
    await app.untilHealthy(60_000);

    app.signal('SIGTERM');

    expect(await app.exitCode()).toBe(0);
    expect(app.output.join('\n')).toMatch(/SIGTERM received[\s\S]*Stopped/);
  });
});
