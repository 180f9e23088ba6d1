import { OutboxRelay } from '../../src/infra/outbox/relaying/outbox.relay';
import type { PgListener } from '../../src/infra/database/pg-listener';
import { eventually } from '../support/eventually';
import { PgBouncer } from '../support/pgbouncer';
import { logs, TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

const said = (pattern: RegExp) => logs.matching((line) => pattern.test(String(line.msg)));

/**
 * An app pointed at a pooler without being told so says so at start, in one line, rather than run
 * without its bounds or leave every notification to the relay's timer.
 */
describe('An app misconfigured for the pooler in front of it', () => {
  let refusing: PgBouncer;
  let ignoring: PgBouncer;
  let database: TestDatabase;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    [refusing, ignoring, database] = await Promise.all([
      PgBouncer.start(),
      PgBouncer.start({ ignoreStartupParameters: ['lock_timeout', 'statement_timeout'] }),
      TestDatabase.create(),
    ]);
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await database?.drop();
    await Promise.all([refusing?.stop(), ignoring?.stop()]);
  });

  const start = async (env: Record<string, string>) => {
    const app = await TestApp.start({ database, env });
    apps.push(app);
    return app;
  };

  it('when DATABASE_URL leads to a pooler that refuses the startup parameters, then the app says to declare it, once, and does not retry', async () => {
    const app = await start({ DATABASE_URL: refusing.urlOf(database.url), DATABASE_RETRY_MS: '100' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(said(/refuses the startup parameter (lock|statement)_timeout .* set DATABASE_POOLER/)).toHaveLength(1);
    expect((await app.http().get('/health')).body.details.postgres).toMatchObject({ status: 'down' });
  });

  it('when DATABASE_URL leads to a pooler that drops the startup parameters, then the app says its bounds are gone, once', async () => {
    const app = await start({ DATABASE_URL: ignoring.urlOf(database.url), DATABASE_RETRY_MS: '100' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(
      said(
        /dropped the bounds sent with each connection \(lock_timeout is 0 ms, not 5000, statement_timeout is 0 ms, not 15000\)/,
      ),
    ).toHaveLength(1);
    expect((await app.http().get('/health')).body.details.postgres).toMatchObject({ status: 'down' });
  });

  it('when the relay LISTENs through a transaction-mode pooler, then it says it hears nothing', async () => {
    const pooled = refusing.urlOf(database.url);
    const app = await start({
      DATABASE_URL: pooled,
      // The pooler again, under another name: what a mistyped direct URL looks like.
      DATABASE_DIRECT_URL: pooled.replace('127.0.0.1', 'localhost'),
      DATABASE_POOLER: 'transaction',
      DATABASE_PREPARED_STATEMENTS: 'false',
    });
    await app.ready();
    const listener = () => (app.get(OutboxRelay) as unknown as { listener?: PgListener }).listener;
    await eventually(
      async () => expect(said(/LISTEN outbox_messages did not hear its own probe NOTIFY/)).toHaveLength(1),
      {
        timeoutMs: 10_000,
        what: 'the relay to say its LISTEN hears nothing',
      },
    );
    expect(listener()?.hearsProbe).toBe(false);
  });
});
