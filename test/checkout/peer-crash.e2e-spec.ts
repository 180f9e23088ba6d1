import { AppProcess } from '../support/app-process';
import { moneyAt } from '../support/at-the-participants';
import { eventually } from '../support/eventually';
import { ProcessClient } from '../support/process-client';
import { runGatewayUrl } from '../support/run-participants';
import {
  type CheckoutRequest,
  HAPPY,
  prepareScenario,
  SCENARIOS,
  type StartedCheckout,
  startCheckout,
} from '../support/scenarios';
import { ADMIN_TOKEN, newQueuePrefix } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

type Peer = 'dbos' | 'graphile-worker';

/**
 * Where each peer's process is killed, in turn: after the gateway's
 * authorization and before our commit, after the capture committed and before the peer wrote that
 * it did (DBOS's checkpoint, graphile-worker's completion of the job), and after the email was
 * handed over and before our commit; DBOS also between the checkout's commit and its workflow's
 * start. `outside` is a SIGKILL sent from outside while a dozen checkouts are on their way.
 */
const POINTS: Record<Peer, string[]> = {
  dbos: [
    'peer:dbos.before-workflow-start',
    'step:billing.authorize-payment:after-effect',
    'step:billing.capture-payment:after-commit',
    'step:notifications.send-welcome-email:after-effect',
    'outside',
  ],
  'graphile-worker': [
    'step:billing.authorize-payment:after-effect',
    'step:billing.capture-payment:after-commit',
    'step:notifications.send-welcome-email:after-effect',
    'outside',
  ],
};

/** One peer's run: its own database, one process at a time. */
class Lane {
  readonly checkouts: StartedCheckout[] = [];
  readonly kills: string[] = [];
  private app?: AppProcess;
  private readonly queuePrefix = newQueuePrefix();
  private unanswered: CheckoutRequest[] = [];

  constructor(
    readonly peer: Peer,
    readonly database: TestDatabase,
  ) {}

  /** Starts the peer's process; `instance` names it for graphile-worker (what it releases at start). */
  async boot(instance = 'lane'): Promise<ProcessClient> {
    this.app = await AppProcess.start(
      {
        PEER: this.peer,
        GRAPHILE_INSTANCE: instance,
        DATABASE_URL: this.database.url,
        QUEUE_PREFIX: this.queuePrefix,
        ADMIN_TOKEN,
        FAULT_INJECTION: 'true',
        LOG_LEVEL: 'warn',
      },
      [process.execPath, '-r', '@swc-node/register', 'bench/peers/peer-main.ts'],
    );
    await this.app.untilHealthy(180_000);
    const client = new ProcessClient(this.app.url);
    // Requests whose answer a kill swallowed: sent again, the same key gives the same checkout.
    for (const request of this.unanswered.splice(0)) this.checkouts.push(await startCheckout(client, request));
    return client;
  }

  private async send(client: ProcessClient, requests: CheckoutRequest[]): Promise<void> {
    await Promise.all(
      requests.map((request) =>
        startCheckout(client, request).then(
          (checkout) => this.checkouts.push(checkout),
          () => this.unanswered.push(request),
        ),
      ),
    );
  }

  /** Arms a crash at `point` (or kills from outside), runs checkouts into it, and waits for the process to die. */
  async killAt(point: string, round: number): Promise<void> {
    const client = await this.boot();
    const app = this.app!;
    const others = SCENARIOS.slice(1);
    if (point === 'outside') {
      const requests = [];
      for (let i = 0; i < 12; i += 1)
        requests.push(await prepareScenario(client, i % 2 === 0 ? HAPPY : others[i % others.length], 'orchestration'));
      const sending = this.send(client, requests);
      const from = this.checkouts.length;
      // Some of them done, the rest on their way: then the kill.
      await eventually(
        async () => {
          const ids = this.checkouts.slice(from).map((checkout) => checkout.id);
          const [{ n }] = await this.database.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM checkout.checkouts WHERE id = ANY($1) AND status <> 'PENDING'`,
            [ids],
          );
          expect(n).toBeGreaterThan(0);
        },
        { timeoutMs: 60_000, intervalMs: 20, what: 'a first checkout to end' },
      );
      app.signal('SIGKILL');
      await sending;
    } else {
      const requests = [
        await prepareScenario(client, HAPPY, 'orchestration'), // reaches every point
        await prepareScenario(client, others[round % others.length], 'orchestration'),
      ];
      await client.setFaults([{ point, action: 'crash', times: 1 }]);
      await this.send(client, requests);
    }
    const exit = await app.exitCode(120_000).catch((error: Error) => {
      throw new Error(`no kill at ${point}: ${error.message}`);
    });
    expect(exit).toBeNull(); // killed by a signal, not exited
    if (point !== 'outside') expect(app.output.join('\n')).toContain(`Injected crash at ${point}:`);
    this.kills.push(point);
  }

  /**
   * The checkouts still PENDING, and what the peer still holds: DBOS workflows or graphile-worker
   * jobs not done, each described (a failure names what it waits for). Not held: a graphile-worker
   * job that a newer one of its key replaced while it was locked (add_job clears the old one's key
   * and spends its attempts, so that it never runs again) and whose process then died; once its
   * lock is released it stays, retired, with no error.
   */
  async inFlight(): Promise<{ pending: number; engine: string[] }> {
    const ids = this.checkouts.map((checkout) => checkout.id);
    const [{ pending }] = await this.database.query<{ pending: number }>(
      `SELECT count(*)::int AS pending FROM checkout.checkouts WHERE id = ANY($1) AND status = 'PENDING'`,
      [ids],
    );
    const engine = await this.database.query<{ held: string }>(
      this.peer === 'dbos'
        ? `SELECT concat_ws(' ', name, status, workflow_uuid) AS held
             FROM dbos.workflow_status WHERE status NOT IN ('SUCCESS', 'ERROR', 'CANCELLED')`
        : `SELECT concat_ws(' ', task_identifier, coalesce(key, '(no key)'), 'attempts', attempts, 'locked by',
                   coalesce(locked_by, '-'), 'runs in', round(extract(epoch FROM run_at - now())) || ' s', last_error) AS held
             FROM graphile_worker.jobs
            WHERE NOT (key IS NULL AND attempts >= max_attempts AND last_error IS NULL)`,
    );
    return { pending, engine: engine.map((row) => row.held) };
  }

  /** Kills the process now (a test that looks at what it left). */
  async kill(): Promise<void> {
    await this.app?.stop();
  }

  async close(): Promise<void> {
    await this.app?.stop();
    await this.database.drop();
  }
}

/**
 * A peer's checkout survives its process being killed as ours does (test/checkout/crash.e2e-spec.ts):
 * for each kill in turn, checkouts run into it, the process dies (SIGKILL, no cleanup), and a new
 * process finishes them. Afterwards, once neither the checkouts nor the peer's engine hold
 * anything in flight, every checkout has its scenario's status, and the invariant checker (which
 * counts the card gateway's operations and the emails handed to the mail transport) finds nothing
 * doubled or held, an email handed over just before a kill included: the participants' operation
 * does not hand an email over again (ADR 0069), whichever engine runs it again.
 *
 * graphile-worker's own part is shown apart: a job whose process died stays locked, and out of the
 * box it is handed out again only after four hours; the peer releases its previous run's locks at
 * start, and the second test shows what a process that does not (another instance name) leaves.
 */
describe('A peer checkout whose process is killed', () => {
  const lanes: Lane[] = [];

  afterAll(async () => {
    await Promise.all(lanes.map((lane) => lane.close()));
  });

  it.concurrent.each(Object.keys(POINTS) as Peer[])(
    'when the %s peer is killed at each point in turn, then every checkout ends as its scenario says, and nothing is held or doubled',
    async (peer) => {
      const lane = new Lane(peer, await TestDatabase.create());
      lanes.push(lane);
      for (const [round, point] of POINTS[peer].entries()) await lane.killAt(point, round);
      expect(lane.kills).toEqual(POINTS[peer]);

      const client = await lane.boot();
      await eventually(async () => expect(await lane.inFlight()).toEqual({ pending: 0, engine: [] }), {
        timeoutMs: 90_000,
        intervalMs: 250,
        what: 'every checkout to end and the engine to be idle',
      });

      const ids = lane.checkouts.map((checkout) => checkout.id);
      const rows = await lane.database.query<{ id: string; status: string }>(
        `SELECT id, status FROM checkout.checkouts WHERE id = ANY($1)`,
        [ids],
      );
      const status = new Map(rows.map((row) => [row.id, row.status]));
      expect(lane.checkouts.map((c) => ({ scenario: c.scenario, status: status.get(c.id) }))).toEqual(
        lane.checkouts.map((c) => ({ scenario: c.scenario, status: c.expected })),
      );
      // Counted where the effects leave the system: one capture at the gateway and one email per completed checkout.
      const completed = lane.checkouts.filter((c) => c.expected === 'COMPLETED').map((c) => c.id);
      const money = await Promise.all(ids.map((id) => moneyAt(runGatewayUrl(), id)));
      const captures = money.filter((_, n) => completed.includes(ids[n])).reduce((sum, m) => sum + m.captures, 0);
      const [{ emails }] = await lane.database.query<{ emails: number }>(
        `SELECT count(*)::int AS emails FROM notifications.mail_handovers WHERE checkout_id::text = ANY($1::text[])`,
        [completed],
      );
      expect({ captures, emails }).toEqual({ captures: completed.length, emails: completed.length });
      // And no money left held on a card: every authorization the gateway approved was captured, voided or refunded.
      expect(money.reduce((sum, m) => sum + m.held, 0)).toBe(0);
      const violations = (await client.invariants()).violations;
      expect(violations).toEqual([]);
    },
    600_000,
  );

  it("when a graphile-worker process dies in a step, before its commit, and a process that does not release its locks starts, then the checkout waits (graphile-worker's four hours) until one that does starts", async () => {
    const lane = new Lane('graphile-worker', await TestDatabase.create());
    lanes.push(lane);
    await lane.killAt('step:billing.capture-payment:after-effect', 0);
    const stuck = lane.checkouts.find((c) => c.scenario === HAPPY.name)!;

    // Another instance name: it knows nothing of the dead process's workers, as graphile-worker out of the box.
    await lane.boot('another');
    // Its jobs are keyed `<checkout>:<step>`.
    const locked = async () =>
      lane.database.query<{ task: string; locked: boolean }>(
        `SELECT task_identifier AS task, locked_at IS NOT NULL AS locked FROM graphile_worker.jobs WHERE key LIKE $1`,
        [`${stuck.id}:%`],
      );
    await eventually(async () => expect(await locked()).toEqual([{ task: 'billing.capture-payment', locked: true }]), {
      timeoutMs: 10_000,
      what: "the capture's job, locked by the dead process",
    });
    const [before] = await lane.database.query<{ status: string }>(
      `SELECT status FROM checkout.checkouts WHERE id = $1`,
      [stuck.id],
    );
    expect(before.status).toBe('PENDING');
    await lane.kill();

    // The dead process's own instance releases its locks at start, and the checkout ends.
    await lane.boot('lane');
    await eventually(async () => expect(await lane.inFlight()).toEqual({ pending: 0, engine: [] }), {
      timeoutMs: 60_000,
      what: 'the checkout to end once the locks are released',
    });
  }, 300_000);
});
