import { AppProcess } from '../support/app-process';
import { eventually } from '../support/eventually';
import { PgBouncer } from '../support/pgbouncer';
import { ProcessClient } from '../support/process-client';
import { quiet } from '../support/quiet';
import { HAPPY, prepareScenario, startCheckout } from '../support/scenarios';
import { SmtpSink } from '../support/smtp-sink';
import { ADMIN_TOKEN, newQueuePrefix } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

const POINT = 'step:notifications.send-welcome-email:after-effect';

/**
 * A process killed through the pooler (SIGKILL) right after the SMTP server took a welcome email
 * and before its transaction committed: PgBouncer rolls that transaction back on its server
 * connection, and the process that takes over finds the hand-over recorded (through the pooler,
 * outside the transaction that died) and does not send the email again.
 */
describe('A process killed through a transaction-mode pooler', () => {
  let bouncer: PgBouncer;
  let sink: SmtpSink;
  let database: TestDatabase;
  let app: AppProcess | undefined;
  const queuePrefix = newQueuePrefix();

  beforeAll(async () => {
    [bouncer, sink, database] = await Promise.all([
      PgBouncer.start({ poolSize: 4 }),
      SmtpSink.start(),
      TestDatabase.create(),
    ]);
  });
  afterAll(async () => {
    await app?.stop();
    await Promise.all([database?.drop(), sink?.stop()]);
    await bouncer?.stop();
  });

  async function boot(): Promise<ProcessClient> {
    app = await AppProcess.start({
      DATABASE_URL: bouncer.urlOf(database.url),
      DATABASE_DIRECT_URL: database.url,
      DATABASE_POOLER: 'transaction',
      DATABASE_PREPARED_STATEMENTS: 'false',
      SMTP_URL: sink.url,
      QUEUE_PREFIX: queuePrefix,
      ADMIN_TOKEN,
      FAULT_INJECTION: 'true',
      LOG_LEVEL: 'warn',
      OUTBOX_RELAY_INTERVAL_MS: '100',
      OUTBOX_JOB_LOCK_MS: '2000',
      OUTBOX_REDELIVER_AFTER_MS: '3000',
      OUTBOX_SWEEP_INTERVAL_MS: '500',
      SAGA_STEP_TIMEOUT_MS: '3000',
      SAGA_SWEEP_INTERVAL_MS: '200',
    });
    await app.untilHealthy(180_000);
    return new ProcessClient(app.url);
  }

  it('when it dies between the hand-over of an email and its commit, then the checkout completes and the email arrives once', async () => {
    let client = await boot();
    const request = await prepareScenario(client, HAPPY, 'orchestration');
    await client.setFaults([{ point: POINT, action: 'crash', times: 1 }]);
    const { id } = await startCheckout(client, request);
    expect(await app!.exitCode(120_000)).toBeNull(); // killed by a signal, not exited
    expect(app!.output.join('\n')).toContain(`Injected crash at ${POINT}:`);
    const handedOver = sink.withHeader('message-id', `<welcome.${id}@checkout.local>`).length;

    client = await boot();
    await eventually(
      async () =>
        expect(await database.query(`SELECT status FROM checkout.checkouts WHERE id = $1`, [id])).toEqual([
          { status: 'COMPLETED' },
        ]),
      { timeoutMs: 60_000, intervalMs: 250, what: 'the checkout to complete' },
    );
    await quiet({ database, queuePrefix }, { stableForMs: 4_000, timeoutMs: 60_000 });
    expect({ handedOver, received: sink.withHeader('message-id', `<welcome.${id}@checkout.local>`).length }).toEqual({
      handedOver: 1,
      received: 1,
    });
    expect((await client.invariants()).violations).toEqual([]);
  }, 300_000); // two starts of the process: tens of seconds on a loaded machine
});
