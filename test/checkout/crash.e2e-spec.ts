import { PgoutputPlugin } from 'pg-logical-replication';
import { DEFAULT_DELIVERY, type DeliveryKind } from '../../src/infra/outbox/outbox.config';
import { PUBLICATION, slotNameFor } from '../../src/infra/outbox/relaying/replication-slot';
import { AppProcess } from '../support/app-process';
import { type Effects } from '../support/at-the-participants';
import { RunningCardGateway } from '../support/card-gateway-service';
import { eventually } from '../support/eventually';
import { ProcessClient } from '../support/process-client';
import { quiet } from '../support/quiet';
import {
  type CheckoutRequest,
  HAPPY,
  type Mode,
  MODES,
  prepareScenario,
  SCENARIOS,
  type StartedCheckout,
  startCheckout,
} from '../support/scenarios';
import { ADMIN_TOKEN, newQueuePrefix } from '../support/test-app';
import { invoicesAt } from '../support/at-the-participants';
import { runAuthorityUrl } from '../support/run-participants';
import { TEST_DATABASE_SESSIONS, TestDatabase } from '../support/test-database';

const STEPS = [
  'identity.verify-user',
  'billing.authorize-payment',
  'content.grant-access',
  'billing.capture-payment',
  'content.activate-access',
  'billing.issue-invoice',
  'notifications.send-welcome-email',
];
/** The consumer that captures, in each mode: its crash before the inbox commit loses a capture's commit. */
const CAPTURING_CONSUMER: Record<Mode, string> = {
  choreography: 'billing.capture-payment',
  orchestration: 'billing.capture-payment-command',
};

/** The other lanes' setting of OUTBOX_DELIVERY (jest.config.js); unset, the app's default. */
const delivery = process.env.TEST_OUTBOX_DELIVERY ?? DEFAULT_DELIVERY;
/**
 * Where a committed message leaves its process: through the queues, the relay between its push and
 * its mark; through the local bus, between the commit and the hand-over to the consumers (ADR 0096).
 */
const LEAVING: Record<DeliveryKind, string> = { queue: 'relay.after-push', local: 'bus.hand-over' };

/**
 * Every crash point, in the order a checkout reaches them: before a step's work (before the
 * gateway call, the email), after its effect and before our commit, after our commit and before
 * the answer leaves (after the inbox commit); where a message leaves its process; a consumer
 * between its handler and the inbox commit.
 */
const crashPoints = (mode: Mode): string[] => [
  ...STEPS.flatMap((step) => [`step:${step}`, `step:${step}:after-effect`, `step:${step}:after-commit`]),
  LEAVING[delivery as DeliveryKind],
  `consumer:${CAPTURING_CONSUMER[mode]}:before-commit`,
];

/** The points whose outcome depends on the way a message goes between modules: after its commit, in its delivery, after its inbox commit. */
const deliveryPoints = (mode: Mode): string[] => [
  LEAVING[delivery as DeliveryKind],
  `consumer:${CAPTURING_CONSUMER[mode]}:before-commit`,
  'step:billing.capture-payment:after-commit',
  'step:notifications.send-welcome-email:after-effect',
];

const settings = {
  OUTBOX_RELAY_INTERVAL_MS: '100',
  // A dead process's jobs are taken back two seconds later, and the sweep re-pushes what is still
  // undelivered after three.
  OUTBOX_JOB_LOCK_MS: '2000',
  OUTBOX_REDELIVER_AFTER_MS: '3000',
  OUTBOX_SWEEP_INTERVAL_MS: '500',
  // A restart takes seconds on a loaded machine: the saga resends meanwhile, and has sends to spare.
  SAGA_STEP_TIMEOUT_MS: '3000',
  SAGA_STEP_ATTEMPTS: '8',
  SAGA_PIVOT_ATTEMPTS: '8',
  SAGA_SWEEP_INTERVAL_MS: '200',
  CHECKOUT_STALLED_AFTER_MS: '120000',
  // This test kills the process ten times in a row, and a job in flight at each kill counts as a
  // crash of its handler: a limit of three would dead-letter innocent deliveries (ADR 0025).
  OUTBOX_CRASH_LIMIT: '50',
};

/**
 * A process killed at any line (SIGKILL, no cleanup) loses nothing and doubles nothing: for each
 * crash point in turn, in both modes, the point is armed, checkouts run into it, the process dies
 * there, and a new process (which knows no fault rule) finishes them. Afterwards, once nothing is
 * in flight, every checkout has its scenario's status and the invariant checker finds nothing.
 *
 * No checkout here may end in INTERVENTION: a crash destroys nothing durable. The job whose
 * process died is taken back when its lock expires, the saga resends what went unanswered, and
 * the gateway answers a repeated idempotency key with its first answer. A person is needed only
 * where a participant keeps failing or stays silent past every resend, which a single crash is not.
 */
describe('A process killed at any line', () => {
  const lanes: Lane[] = [];
  // The card gateway a service of its own, as in a deployment: the money is counted at its listing,
  // by the checker and below, where a doubled capture or a hold left behind would show up.
  let gateway: RunningCardGateway;
  beforeAll(async () => {
    gateway = await RunningCardGateway.start();
  });
  const logical = process.env.TEST_OUTBOX_RELAY === 'logical';
  // Jest's project that runs the transport's files with the other setting of OUTBOX_DELIVERY.
  const otherDelivery = !logical && process.env.TEST_OUTBOX_DELIVERY !== undefined;

  afterAll(async () => {
    await Promise.all(lanes.map((lane) => lane.close()));
    await gateway?.stop();
  });

  /** One mode's run: its own database and queues, one process at a time. */
  class Lane {
    readonly checkouts: StartedCheckout[] = [];
    readonly crashed: string[] = [];
    private app?: AppProcess;
    readonly queuePrefix = newQueuePrefix();
    private unanswered: CheckoutRequest[] = [];

    constructor(
      readonly mode: Mode,
      readonly database: TestDatabase,
    ) {}

    async boot(): Promise<ProcessClient> {
      this.app = await AppProcess.start({
        DATABASE_URL: this.database.url,
        QUEUE_PREFIX: this.queuePrefix,
        CHECKOUT_MODE: this.mode,
        ADMIN_TOKEN,
        CARD_GATEWAY_URL: gateway.url,
        FAULT_INJECTION: 'true',
        LOG_LEVEL: 'warn',
        ...settings,
      });
      const app = this.app;
      // Generous: four processes booting at once on a loaded 2-core machine take a while.
      await app.untilHealthy(180_000);
      const client = new ProcessClient(app.url);
      // Requests whose answer the last crash swallowed: sent again, the same key gives the same checkout.
      for (const request of this.unanswered.splice(0)) this.checkouts.push(await startCheckout(client, request));
      return client;
    }

    /** Arms a crash at `point`, runs checkouts into it, and waits for the process to die there. */
    async crashAt(point: string, round: number): Promise<void> {
      const client = await this.boot();
      const requests = [
        await prepareScenario(client, HAPPY, this.mode), // reaches every point
        await prepareScenario(client, SCENARIOS[1 + (round % (SCENARIOS.length - 1))], this.mode),
      ];
      if (logical) await this.untilTheSlotIsRead();
      await client.setFaults([{ point, action: 'crash', times: 1 }]);
      await Promise.all(
        requests.map((request) =>
          startCheckout(client, request).then(
            (checkout) => this.checkouts.push(checkout),
            () => this.unanswered.push(request),
          ),
        ),
      );
      const app = this.app!;
      const exit = await app.exitCode(120_000).catch((error: Error) => {
        throw new Error(`no crash at ${point}: ${error.message}`);
      });
      // On the database's clock, as the rows' commit times are.
      const [{ exitSeenAt }] = await this.database.query<{ exitSeenAt: string }>(
        `SELECT clock_timestamp()::text AS "exitSeenAt"`,
      );
      expect(exit).toBeNull(); // killed by a signal, not exited
      expect(app.output.join('\n')).toContain(`Injected crash at ${point}:`);
      if (logical && point.startsWith('relay.')) await this.expectTheBatchHeldBySlot(point, exitSeenAt);
      this.crashed.push(point);
    }

    /**
     * A relay killed before its confirmation leaves its batch in the slot, to be sent again: the
     * confirmation comes after the push and the mark's commit. Killed after the push and before the
     * mark's commit, the batch is unpublished; killed before the confirmation, its rows are the last
     * marked. Every unpublished row, and the last one marked, must still be in the slot.
     *
     * In this order: the rows first, then the slot once the dead app's sessions have all ended. A
     * session of the dead app can still commit what its client wrote before the kill (a checkout's
     * insert and its COMMIT, sent together) after its replication session has let the slot go: a row
     * committed after the slot was looked into is not in what it showed, and was not the relay's to
     * have. Each row says when it committed (track_commit_timestamp, on the lane's cluster).
     */
    async expectTheBatchHeldBySlot(point: string, exitSeenAt: string): Promise<void> {
      const unpublished = await this.database.query<{ id: string; committed: string }>(
        `SELECT id, pg_xact_commit_timestamp(xmin)::text AS committed FROM outbox.messages WHERE published_at IS NULL`,
      );
      const [last] = await this.database.query<{ id: string }>(
        `SELECT id FROM outbox.messages WHERE published_at IS NOT NULL ORDER BY published_at DESC LIMIT 1`,
      );
      await this.untilTheDeadAppsSessionsEnd();
      const { held, at } = await this.heldBySlot();
      const missing = unpublished.filter(({ id }) => !held.has(id));
      expect(missing.map((row) => ({ ...row, exitSeenAt, slotReadAt: at }))).toEqual([]);
      if (point === 'relay.before-confirm') {
        expect({ last: last.id, held: held.has(last.id) }).toEqual({ last: last.id, held: true });
      }
    }

    /** Every session the killed app had on the database (its replication session among them) has ended. */
    private async untilTheDeadAppsSessionsEnd(): Promise<void> {
      await eventually(
        async () => {
          const left = await this.database.query<{ application_name: string }>(
            `SELECT application_name FROM pg_stat_activity
              WHERE datname = current_database() AND backend_type IN ('client backend', 'walsender')
                AND application_name <> $1`,
            [TEST_DATABASE_SESSIONS],
          );
          expect(left).toEqual([]);
        },
        { timeoutMs: 15_000, what: "the dead app's sessions to end" },
      );
    }

    /** The ids of the outbox rows the slot would send again, and when it was looked into. */
    private async heldBySlot(): Promise<{ held: Set<string>; at: string }> {
      const slot = slotNameFor(undefined, this.database.url);
      const [{ at }] = await this.database.query<{ at: string }>(`SELECT clock_timestamp()::text AS at`);
      const changes = await this.database.query<{ data: Buffer }>(
        `SELECT data FROM pg_logical_slot_peek_binary_changes($1, NULL, NULL,
           'proto_version', '1', 'publication_names', $2)`,
        [slot, PUBLICATION],
      );
      const plugin = new PgoutputPlugin({ protoVersion: 1, publicationNames: [PUBLICATION] });
      const ids = changes
        .map(({ data }) => plugin.parse(data))
        .flatMap((message) => (message.tag === 'insert' ? [String(message.new.id)] : []));
      return { held: new Set(ids), at };
    }

    /**
     * The slot is read by a replication session, past the reader's first claim: a crash in the relay
     * is then the stream's. Not only active: the slot is active too while the first reader creates
     * it, before its claim of the rows written before the slot was consistent (which the slot never
     * has), and a crash armed then would fire in that claim.
     */
    async untilTheSlotIsRead(): Promise<void> {
      const slot = slotNameFor(undefined, this.database.url);
      await eventually(
        async () => {
          const streaming = await this.database.query(
            `SELECT 1 FROM pg_replication_slots s JOIN pg_stat_activity a ON a.pid = s.active_pid
              WHERE s.slot_name = $1 AND a.backend_type = 'walsender'`,
            [slot],
          );
          expect(streaming).toHaveLength(1);
        },
        { timeoutMs: 60_000, what: 'the slot to be read' },
      );
    }

    async close(): Promise<void> {
      await this.app?.stop();
      await this.database.drop();
    }
  }

  // Four lanes at once, each with its own database and queues: every restart costs seconds.
  // CRASH_POINTS=point,point... runs only those (to look into one, or to see a planted fault caught).
  const only = process.env.CRASH_POINTS?.split(',');
  const chosen = (points: string[]) => points.filter((point) => !only || only.includes(point));
  // Two lanes per mode: the steps up to the grant and the relay (ten points); the capture and what
  // follows it, and the capturing consumer (thirteen).
  // In the logical lane (jest.config.js), one lane per mode of the relay's points only: the logical
  // relay's own between its push and its confirmation to the slot too. The steps' and the
  // consumer's points do not depend on the relay, and their twenty restarts a mode are the polling
  // lane's to pay. In the lane of the other delivery, one lane per mode of the points that depend
  // on it.
  const cases = MODES.flatMap((mode): Array<readonly [Mode, string, string[]]> => {
    const points = crashPoints(mode);
    const [leaving, consumer] = points.slice(-2);
    if (logical) return [[mode, 'the logical relay', chosen(['relay.after-push', 'relay.before-confirm'])]];
    if (otherDelivery) return [[mode, `the ${delivery} delivery's points`, chosen(deliveryPoints(mode))]];
    return [
      [mode, 'up to the grant, and where a message leaves', chosen([...points.slice(0, 9), leaving])],
      [mode, 'from the capture on, and the capturing consumer', chosen([...points.slice(9, -2), consumer])],
    ];
  }).filter(([, , points]) => points.length > 0);

  it.concurrent.each(cases)(
    'when the process is killed at each crash point in turn (%s, %s), then every checkout ends as its scenario says, and nothing is held, doubled or lost',
    async (mode, _, points) => {
      const lane = new Lane(mode, await TestDatabase.create());
      lanes.push(lane);
      for (const [round, point] of points.entries()) await lane.crashAt(point, round);
      expect(lane.crashed).toEqual(points);

      const client = await lane.boot();
      const ids = lane.checkouts.map((checkout) => checkout.id);
      await eventually(
        async () => {
          const statuses = await lane.database.query<{ id: string; status: string }>(
            `SELECT id, status FROM checkout.checkouts WHERE id = ANY($1) AND status <> 'PENDING'`,
            [ids],
          );
          expect(statuses).toHaveLength(ids.length);
        },
        { timeoutMs: 60_000, intervalMs: 250, what: 'every checkout to end' },
      );
      await quiet(lane, { stableForMs: 4_000, timeoutMs: 60_000 });

      const rows = await lane.database.query<{ id: string; status: string }>(
        `SELECT id, status FROM checkout.checkouts WHERE id = ANY($1)`,
        [ids],
      );
      const status = new Map(rows.map((row) => [row.id, row.status]));
      expect(lane.checkouts.map((c) => ({ scenario: c.scenario, status: status.get(c.id) }))).toEqual(
        lane.checkouts.map((c) => ({ scenario: c.scenario, status: c.expected })),
      );
      // A kill after an email's hand-over and before its commit (the armed one included) no longer
      // sends it twice: the retry finds the hand-over recorded. A kill between the SMTP server's
      // answer and that record would, and leaves one record for two copies, which the checker
      // cannot see: only an SMTP server's count could.
      expect((await client.invariants()).violations).toEqual([]);
      // The money and the invoices, counted at the services: a sale authorized and captured once
      // with one invoice; anything else with nothing captured, nothing invoiced, and every hold
      // (one at most) voided.
      const authority = runAuthorityUrl();
      const counted = await Promise.all(
        lane.checkouts.map(async (c) => ({
          id: c.id,
          money: await gateway.effects(c.id),
          invoices: await invoicesAt(authority, c.id),
        })),
      );
      expect(counted).toEqual(
        counted.map(({ id, money }) => {
          const sold = status.get(id) === 'COMPLETED';
          const held = Math.min(money.authorize, 1);
          const expected: Effects = sold
            ? { authorize: 1, capture: 1, void: 0, refund: 0 }
            : { authorize: held, capture: 0, void: held, refund: 0 };
          return { id, money: expected, invoices: sold ? 1 : 0 };
        }),
      );
    },
    // Each point costs a process start and a crash: minutes in all, most of it Nest booting.
    900_000,
  );
});
