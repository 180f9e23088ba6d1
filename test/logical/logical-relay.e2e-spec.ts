import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Client, Pool } from 'pg';
import { LATE_AFTER_MS, LogicalRelay } from '../../src/infra/outbox/relaying/logical-relay';
import { OutboxRelay } from '../../src/infra/outbox/relaying/outbox.relay';
import { logicalRelayProblems, slotNameFor } from '../../src/infra/outbox/relaying/replication-slot';
import { AppProcess } from '../support/app-process';
import { effectsAt } from '../support/at-the-participants';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { LogicalPostgres } from '../support/logical-postgres';
import { metricValue } from '../support/metrics';
import { ProcessClient } from '../support/process-client';
import { runGatewayUrl } from '../support/run-participants';
import { HAPPY, prepareScenario, startCheckout } from '../support/scenarios';
import { SmtpSink } from '../support/smtp-sink';
import { ADMIN_TOKEN, logs, newQueuePrefix, TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { TEST_REDIS_URL } from '../support/test-env';
import {
  expectSettledOnce,
  FINAL,
  REDELIVER_AFTER_MS,
  RETRY_BACKOFF_MS,
  startEveryOutcome,
} from '../topology/topology-cases';

/** What every app here runs with: a short redelivery age, and failed deliveries retried later than it. */
const ENV = {
  REDIS_URL: TEST_REDIS_URL,
  OUTBOX_RELAY: 'logical',
  OUTBOX_REDELIVER_AFTER_MS: String(REDELIVER_AFTER_MS),
  OUTBOX_SWEEP_INTERVAL_MS: '200',
  OUTBOX_BACKOFF_MS: String(RETRY_BACKOFF_MS),
  OUTBOX_JOB_LOCK_MS: '2000',
};
const READING = /Reading the outbox's inserts from slot/;

/**
 * OUTBOX_RELAY=logical, on a Postgres of the tests' own with wal_level=logical (the machine's runs
 * with replica): the relay reads the outbox's inserts from a replication slot, pushes the polling
 * relay's jobs, and confirms the slot's position only once they are pushed and marked.
 */
describe('The logical relay', () => {
  let postgres: LogicalPostgres;
  let sink: SmtpSink;
  const processes: AppProcess[] = [];
  const apps: TestApp[] = [];
  const connect = () => new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });

  beforeAll(async () => {
    [postgres, sink] = await Promise.all([LogicalPostgres.start(), SmtpSink.start()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...processes.map((app) => app.stop()), ...apps.map((app) => app.stop())]);
    await Promise.all([postgres?.stop(), sink?.stop()]);
  });

  const boot = async (url: string, queuePrefix: string, env: Record<string, string> = {}): Promise<AppProcess> => {
    const app = await AppProcess.start({
      ...ENV,
      DATABASE_URL: url,
      QUEUE_PREFIX: queuePrefix,
      ADMIN_TOKEN,
      FAULT_INJECTION: 'true',
      SMTP_URL: sink.url,
      ...env,
    });
    processes.push(app);
    await app.untilHealthy(120_000);
    return app;
  };

  it('when the server lacks wal_level=logical, then an app in logical mode says so in one line and does not start', async () => {
    const database = await TestDatabase.create(); // on the machine's own server: wal_level=replica
    try {
      const app = await AppProcess.start({ ...ENV, DATABASE_URL: database.url, QUEUE_PREFIX: newQueuePrefix() });
      processes.push(app);
      expect(await app.exitCode(120_000)).toBe(1);
      const lines = app.output.filter((line) => line.includes('OUTBOX_RELAY=logical needs'));
      expect(lines).toEqual([expect.stringContaining('wal_level=logical (it is replica')]);
    } finally {
      await database.drop();
    }
    // A user without the REPLICATION attribute is told too, on a server that has wal_level=logical.
    await postgres.server.query(`CREATE ROLE plain LOGIN`);
    const plain = new Client({ connectionString: postgres.url('postgres').replace('postgres@', 'plain@') });
    await plain.connect();
    try {
      expect(await logicalRelayProblems({ query: async (sql) => (await plain.query(sql)).rows as never })).toEqual([
        'the REPLICATION attribute for plain (ALTER ROLE "plain" REPLICATION)',
      ]);
    } finally {
      await plain.end();
    }
  }, 150_000);

  it('when a commit reaches the slot seconds before it is visible (it waits for a synchronous standby), then its message is relayed once it is', async () => {
    const name = 'logical_late_test';
    const url = await postgres.createDatabase(name);
    const admin = new Client({ connectionString: url });
    await admin.connect();
    // Only a session that asks for it waits for a standby: the app's commit locally.
    await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = local`);
    const app = await TestApp.start({ database: TestDatabase.at(url), env: { ...ENV, SMTP_URL: sink.url } });
    apps.push(app);
    await app.ready();
    await eventually(() => expect(app.get(LogicalRelay).reading).toBe(true), { timeoutMs: 30_000, what: 'the reader' });
    const producer = new Client({ connectionString: url });
    await producer.connect();
    try {
      await admin.query(`ALTER SYSTEM SET synchronous_standby_names = 'nobody'`);
      await admin.query(`SELECT pg_reload_conf()`);
      await producer.query(`SET synchronous_commit = on`);
      // A reload reaches each session on its own time: this one must wait before its INSERT.
      await eventually(
        async () => {
          const { rows } = await producer.query<{ synchronous_standby_names: string }>(
            `SHOW synchronous_standby_names`,
          );
          expect(rows[0].synchronous_standby_names).toBe('nobody');
        },
        { what: 'the producer to wait for a standby' },
      );
      const {
        rows: [{ pid }],
      } = await producer.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
      // Written and carried by the slot at once, visible only once the wait for a standby ends. The
      // server starts waiting for standbys once its checkpointer has read the new setting: until
      // then a commit does not wait, and is tried again.
      const waitsForAStandby = async () =>
        (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'SyncRep'`, [pid]))
          .rowCount === 1;
      const gaveUp = logs.lines.filter((line) => /are not in the outbox/.test(String(line.msg))).length;
      let id = '';
      let committed: Promise<unknown> | undefined;
      for (let tries = 0; !committed; tries++) {
        expect(tries).toBeLessThan(50);
        id = randomUUID();
        let done = false;
        const insert = producer
          .query(
            `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id)
             VALUES ($1, 'event', 'lab.late-row.v1', 'late', '{}', 'late')`,
            [id],
          )
          .finally(() => (done = true));
        while (!done && !(await waitsForAStandby())) await new Promise((resolve) => setTimeout(resolve, 20));
        if (done) await insert;
        else committed = insert;
      }
      await eventually(
        () =>
          expect(logs.lines.filter((line) => /are not in the outbox/.test(String(line.msg))).length).toBe(gaveUp + 1),
        { timeoutMs: 15_000, what: 'the relay to give up looking for the row' },
      );
      await admin.query(`SELECT pg_cancel_backend($1)`, [pid]);
      await committed;
      const published = () =>
        admin
          .query<{ published: boolean }>(
            `SELECT published_at IS NOT NULL AS published FROM outbox.messages WHERE id = $1`,
            [id],
          )
          .then(({ rows }) => rows[0]?.published);
      expect(await published()).toBe(false);
      await eventually(async () => expect(await published()).toBe(true), {
        timeoutMs: LATE_AFTER_MS * 3,
        what: 'the late row to be relayed',
      });
    } finally {
      await admin.query(`ALTER SYSTEM RESET synchronous_standby_names`);
      await admin.query(`SELECT pg_reload_conf()`);
      await Promise.all([producer.end(), admin.end()]);
    }
  }, 120_000);

  it('when checkouts of every outcome run in both modes, then the slot carries their messages, and each ends as it must, once', async () => {
    const url = await postgres.createDatabase('logical_checkouts_test');
    const app = await TestApp.start({ database: TestDatabase.at(url), env: { ...ENV, SMTP_URL: sink.url } });
    apps.push(app);
    await app.ready();
    await eventually(() => expect(app.get(LogicalRelay).reading).toBe(true), { timeoutMs: 30_000, what: 'the reader' });
    expect(app.get(OutboxRelay).active).toBe(false); // no polling here
    const client = new CheckoutClient(app);
    await expectSettledOnce(app, client, sink, await startEveryOutcome(client), connect);

    // Every message went through the slot, which its reader keeps confirmed up to the WAL's end.
    const slot = slotNameFor(undefined, url);
    const [{ unpublished }] = await app.database.query<{ unpublished: number }>(
      `SELECT count(*)::int AS unpublished FROM outbox.messages WHERE published_at IS NULL`,
    );
    expect(unpublished).toBe(0);
    const [{ messages }] = await app.database.query<{ messages: number }>(
      `SELECT count(*)::int AS messages FROM outbox.messages`,
    );
    expect(await metricValue(app, 'outbox_slot_relayed_messages_total')).toBeGreaterThanOrEqual(messages);
    expect(logs.lines.filter((line) => String(line.msg).includes('Stopped reading slot'))).toEqual([]);
    expect(await metricValue(app, 'outbox_slot_active', { slot })).toBe(1);

    // A commit reaches the slot a moment before it is visible to other sessions: 300 one-row
    // transactions at once, none of whose rows may be left unpublished for having been looked
    // for too early.
    const writers = new Pool({ connectionString: url, max: 20 });
    try {
      await Promise.all(
        Array.from({ length: 300 }, (_, seq) =>
          writers.query(
            `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id, created_at)
             VALUES (gen_random_uuid(), 'event', 'test.burst-happened.v1', $1, '{}', 'burst', clock_timestamp())`,
            [String(seq)],
          ),
        ),
      );
    } finally {
      await writers.end();
    }
    await eventually(
      async () => {
        const [{ left }] = await app.database.query<{ left: number }>(
          `SELECT count(*)::int AS left FROM outbox.messages WHERE published_at IS NULL`,
        );
        expect(left).toBe(0);
      },
      { timeoutMs: 20_000, what: 'every row of the burst to be published' },
    );
    await eventually(
      async () => expect(await metricValue(app, 'outbox_slot_unconfirmed_age_seconds', { slot })).toBeLessThan(3),
      { timeoutMs: 15_000, what: 'the slot to be confirmed up to the end' },
    );
  }, 180_000);

  it('when the reader dies between its push and its confirmation, then the slot sends the batch again, another replica takes over, and every effect happens once; a slot nobody reads then shows its lag', async () => {
    const url = await postgres.createDatabase('logical_crash_test');
    const database = TestDatabase.at(url);
    const slot = slotNameFor(undefined, url);
    const queuePrefix = newQueuePrefix();
    const first = await boot(url, queuePrefix);
    await first.waitForLine(READING, 60_000);
    const firstClient = new ProcessClient(first.url);
    const request = await prepareScenario(firstClient, HAPPY, 'choreography');
    await firstClient.setFaults([{ point: 'relay.before-confirm', action: 'crash', times: 1 }]);
    const checkout = await startCheckout(firstClient, request);
    expect(await first.exitCode(60_000)).toBeNull(); // killed, not exited
    expect(first.output.join('\n')).toContain('Injected crash at relay.before-confirm');

    // Pushed and marked, and still in the slot: it will be sent again.
    const [{ marked }] = await database.query<{ marked: number }>(
      `SELECT count(*)::int AS marked FROM outbox.messages WHERE published_at IS NOT NULL`,
    );
    // Once the dead reader's session is gone, the slot can be looked into.
    const held = await eventually(
      async () => {
        const [row] = await database.query<{ held: number }>(
          `SELECT count(*)::int AS held FROM pg_logical_slot_peek_binary_changes($1, NULL, NULL,
             'proto_version', '1', 'publication_names', 'outbox_relay')`,
          [slot],
        );
        return row.held;
      },
      { timeoutMs: 15_000, what: 'the slot to be free' },
    );
    expect(marked).toBeGreaterThan(0);
    expect(held).toBeGreaterThan(0);

    // Two replicas now: one reads, the other waits for the lock.
    const [second, third] = await Promise.all([boot(url, queuePrefix), boot(url, queuePrefix)]);
    const reader = await eventually(
      () => {
        const readers = [second, third].filter((app) => app.output.some((line) => READING.test(line)));
        expect(readers).toHaveLength(1);
        return readers[0];
      },
      { timeoutMs: 60_000, what: 'one replica to read the slot' },
    );
    const standby = reader === second ? third : second;
    const client = new ProcessClient(standby.url);
    await client.until(checkout.id, FINAL, 60_000);
    expect((await client.get(checkout.id)).status).toBe('COMPLETED');

    // The reader dies; the other takes over, and a checkout started now completes through it.
    const killedAt = Date.now();
    await reader.stop();
    await standby.waitForLine(READING, 30_000);
    const takeoverMs = Date.now() - killedAt;
    const after = await startCheckout(client, await prepareScenario(client, HAPPY, 'orchestration'));
    await client.until(after.id, FINAL, 60_000);
    expect((await client.get(after.id)).status).toBe('COMPLETED');
    expect((await client.invariants()).violations).toEqual([]);
    for (const id of [checkout.id, after.id]) {
      const money = await effectsAt(runGatewayUrl(), id);
      const [{ emails }] = await database.query<{ emails: number }>(
        `SELECT count(*)::int AS emails FROM notifications.mail_handovers WHERE checkout_id = $1 AND template = 'welcome'`,
        [id],
      );
      expect({ id, money, emails }).toEqual({ id, money: { authorize: 1, capture: 1, void: 0, refund: 0 }, emails: 1 });
    }
    process.stdout.write(`Logical relay: the standby read the slot ${takeoverMs} ms after the reader was killed\n`);

    // Nobody reads the slot any more: a polling app goes on writing, and the slot's lag grows.
    await standby.stop();
    const polling = await TestApp.start({
      database,
      queuePrefix,
      env: { ...ENV, OUTBOX_RELAY: 'polling', SMTP_URL: sink.url },
    });
    apps.push(polling);
    await polling.ready();
    const lag = () => metricValue(polling, 'outbox_slot_unconfirmed_wal_bytes', { slot });
    const pollingClient = new CheckoutClient(polling);
    const buyer = await pollingClient.createUser();
    const before = await lag();
    await eventually(() => expect(metricValue(polling, 'outbox_slot_active', { slot })).resolves.toBe(0), {
      timeoutMs: 10_000,
      what: 'the slot to be unread',
    });
    const id = await pollingClient.start({ userId: buyer.id, mode: 'choreography' });
    await pollingClient.until(id, FINAL, 60_000);
    await eventually(
      async () => {
        expect(await lag()).toBeGreaterThan(before);
        expect(await metricValue(polling, 'outbox_slot_unconfirmed_age_seconds', { slot })).toBeGreaterThan(1);
      },
      { timeoutMs: 20_000, what: "the unread slot's lag to rise" },
    );
    expect(await metricValue(polling, 'outbox_slot_retained_wal_bytes', { slot })).toBeGreaterThanOrEqual(await lag());
  }, 400_000);
});
