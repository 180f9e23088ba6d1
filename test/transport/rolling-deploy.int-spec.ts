import { randomUUID } from 'node:crypto';
import { ConsumerCatalog, routesOf } from '../../src/infra/outbox/consuming/consumer-catalog';
import { OutboxQueues } from '../../src/infra/outbox/outbox.queues';
import { eventually } from '../support/eventually';
import { ArchiveFixtureModule } from '../support/fixtures/archive.fixture';
import {
  Corrections,
  EntryCorrected,
  FILE_ENTRY,
  FilingV1FixtureModule,
  FilingV2FixtureModule,
} from '../support/fixtures/filing.fixture';
import { Ledger, LedgerFixtureModule } from '../support/fixtures/ledger.fixture';
import { metricValue } from '../support/metrics';
import { stillQueued } from '../support/queued-deliveries';
import { quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { THROUGH_THE_QUEUES } from '../support/test-env';

/**
 * A rolling deploy: the old version (the only relay and sweep, and workers) and the new one
 * (workers) on one database and one queue prefix. The new version has a consumer that the old one
 * lacks (`audit.archive-entry`), and a newer version of a consumer they share (`audit.file-entry`,
 * which takes a type that only the new version publishes).
 */
describe('Two versions of the app at once', () => {
  let database: TestDatabase;
  let oldApp: TestApp;
  let newApp: TestApp;
  // The old version's relay and sweep are the subject: every message goes their way.
  const env = {
    ...THROUGH_THE_QUEUES,
    OUTBOX_RELAY_INTERVAL_MS: '50',
    OUTBOX_REDELIVER_AFTER_MS: '500',
    OUTBOX_SWEEP_INTERVAL_MS: '100',
  };
  // A job that old workers take is left for a second, then taken again by whichever worker is
  // first. The one that left it mostly wins: a job for a type only the new version takes bounced
  // for up to 37 s (at load 15) before the new version's worker took it, 12 s commonly.
  const BOUNCES_FOR_MS = 150_000;

  const effects = (consumer: string, entryIds: string[]) =>
    database.query<{ entry_id: string; n: number }>(
      `SELECT entry_id, count(*)::int AS n FROM fixture.effects
        WHERE consumer = $1 AND entry_id = ANY($2::uuid[]) GROUP BY entry_id`,
      [consumer, entryIds],
    );

  /**
   * Once the system is quiet: how often `audit.file-entry` filed the entry, and whether the sweep
   * judged the message delivered only after the consumer's inbox row (its handler's commit).
   */
  const filedOnceAfterQuiet = async (messageId: string, entryId: string) => {
    await quiet(oldApp, { timeoutMs: BOUNCES_FOR_MS });
    const [filed] = await effects(FILE_ENTRY, [entryId]);
    expect(filed?.n ?? 0).toBe(1);
    const [judged] = await database.query<{ handled_before_delivered: boolean | null }>(
      `SELECT i.handled_at <= m.delivered_at AS handled_before_delivered
         FROM outbox.messages m LEFT JOIN outbox.inbox i ON i.message_id = m.id AND i.consumer = $2
        WHERE m.id = $1`,
      [messageId, FILE_ENTRY],
    );
    expect(judged.handled_before_delivered).toBe(true);
    // The old workers that took it left it for the new version, and dropped nothing.
    expect(await metricValue(oldApp, 'outbox_refused_jobs_total', { queue: 'audit' })).toBe(0);
  };

  const published = (messageId: string) =>
    eventually(async () => {
      const [row] = await database.query<{ published: boolean }>(
        `SELECT published_at IS NOT NULL AS published FROM outbox.messages WHERE id = $1`,
        [messageId],
      );
      expect(row.published).toBe(true);
    });

  beforeAll(async () => {
    database = await TestDatabase.create();
    oldApp = await TestApp.start({ imports: [LedgerFixtureModule, FilingV1FixtureModule], database, env });
    newApp = await TestApp.start({
      imports: [LedgerFixtureModule, ArchiveFixtureModule, FilingV2FixtureModule],
      database,
      queuePrefix: oldApp.queuePrefix,
      env: { ...env, APP_ROLES: 'worker' },
    });
  });
  afterAll(async () => {
    await newApp.stop();
    await oldApp.stop();
    await database.drop();
  });

  it('when only the new version has a consumer, then the old relay and sweep still deliver to it, once each', async () => {
    const entryIds = Array.from({ length: 20 }, () => randomUUID());

    for (const entryId of entryIds) await oldApp.get(Ledger).record(entryId, 1);

    // Alone it takes 2 to 8 s; the wait is generous for the reason above. How long a left job can
    // bounce is an open question for rolling deploys, not this test's.
    await eventually(async () => expect(await effects('audit.archive-entry', entryIds)).toHaveLength(20), {
      timeoutMs: BOUNCES_FOR_MS,
    });
    await eventually(async () => {
      const [row] = await database.query<{ undelivered: number }>(
        `SELECT count(*)::int AS undelivered FROM outbox.messages
          WHERE type = 'ledger.entry-recorded.v1' AND aggregate_id = ANY($1) AND delivered_at IS NULL`,
        [entryIds],
      );
      expect(row.undelivered).toBe(0);
    });
    for (const consumer of ['audit.archive-entry', 'ledger.apply-entry', 'audit.note-entry', FILE_ENTRY]) {
      expect((await effects(consumer, entryIds)).every((row) => row.n === 1)).toBe(true);
    }
    // The old workers that took the new consumer's jobs left them, without handling or dropping them.
    expect(await metricValue(oldApp, 'outbox_consumed_total', { consumer: 'audit.archive-entry', outcome: 'ok' })).toBe(
      0,
    );
  }, 200_000);

  it('when a new process publishes a type that only the new version of a consumer takes, then the old relay pushes it to that consumer, which handles it once', async () => {
    // The old relay's routes (read at most a second ago) know the new version of the consumer.
    await eventually(
      async () =>
        routesOf(await oldApp.get(ConsumerCatalog).recentRoutes(), EntryCorrected.type).some(
          (route) => route.consumer === FILE_ENTRY,
        ),
      { what: `the old relay's routes to send ${EntryCorrected.type} to ${FILE_ENTRY}` },
    );
    const relayed = () => metricValue(oldApp, 'outbox_relayed_jobs_total', { queue: 'audit' });
    const relayedBefore = await relayed();
    const entryId = randomUUID();

    const messageId = await newApp.get(Corrections).correct(entryId);

    await published(messageId);
    expect((await relayed()) - relayedBefore).toBe(1);
    await filedOnceAfterQuiet(messageId, entryId);
  }, 200_000);

  it("when the relay's job for the new version of a consumer is lost, then the old sweep pushes it again, and judges it delivered only once handled", async () => {
    const audit = oldApp.get(OutboxQueues).queue('audit');
    const redelivered = () => metricValue(oldApp, 'outbox_redelivered_jobs_total', { consumer: FILE_ENTRY });
    const redeliveredBefore = await redelivered();
    const entryId = randomUUID();

    // Redis loses what the relay pushed, as a flush would: only the sweep can deliver it now.
    await audit.pause();
    let messageId: string;
    try {
      messageId = await newApp.get(Corrections).correct(entryId);
      await published(messageId);
      await audit.drain(true);
      expect(await stillQueued(audit, messageId, FILE_ENTRY)).toBe(false);
    } finally {
      await audit.resume();
    }

    await filedOnceAfterQuiet(messageId, entryId);
    expect((await redelivered()) - redeliveredBefore).toBeGreaterThanOrEqual(1);
  }, 200_000);

  it('when a process of a version before the versioned catalog runs beside these, then each routes to the consumers that only the other has', async () => {
    // What such a process runs to register its consumers and to read its routes, as it was written.
    const registerBefore = `INSERT INTO outbox.consumers (consumer, queue, types, "where")
      SELECT c, q, string_to_array(t, ' '), w::jsonb FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(c, q, t, w)
      ON CONFLICT (consumer) DO UPDATE
        SET queue = excluded.queue, types = excluded.types, "where" = excluded."where", seen_at = clock_timestamp()`;
    const routesBefore = `SELECT consumer, queue, types, "where" FROM outbox.consumers
      WHERE seen_at > clock_timestamp() - make_interval(secs => $1)`;
    // A consumer that only that version has, of a type nobody publishes here.
    const reversed = 'ledger.entry-reversed.v1';
    try {
      // Its boot, then a heartbeat.
      for (let registration = 0; registration < 2; registration++) {
        await database.query(registerBefore, [['audit.note-reversal'], ['audit'], [reversed], ['{}']]);
      }

      const routes = await oldApp.get(ConsumerCatalog).routes();
      expect(routesOf(routes, reversed).map((route) => route.consumer)).toEqual(['audit.note-reversal']);
      const itsRoutes = await database.query<{ consumer: string }>(routesBefore, [3_600]);
      expect(itsRoutes.map((route) => route.consumer)).toEqual(
        expect.arrayContaining(['audit.archive-entry', FILE_ENTRY]),
      );
    } finally {
      await database.query(`DELETE FROM outbox.consumers WHERE consumer = 'audit.note-reversal'`);
    }
  });
});
