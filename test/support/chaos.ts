import { randomBytes } from 'node:crypto';
import { createTransport } from 'nodemailer';
import { Pool } from 'pg';
import { AppProcess, freePort } from './app-process';
import { eventually } from './eventually';
import { invoicesAt } from './at-the-participants';
import { runAuthorityUrl } from './run-participants';
import { ProcessClient } from './process-client';
import { quiet, type QuietTarget, stillBusy } from './quiet';
import { RedisServer } from './redis-server';
import {
  type CheckoutRequest,
  type Mode,
  MODES,
  prepareScenario,
  SCENARIOS,
  type StartedCheckout,
  startCheckout,
} from './scenarios';
import { SmtpSink } from './smtp-sink';
import { TcpProxy } from './tcp-proxy';
import { ADMIN_TOKEN } from './test-app';

export type ChaosFault = 'kill' | 'redis-flush' | 'redis-restart' | 'postgres-cut';
const FAULTS: ChaosFault[] = ['kill', 'redis-flush', 'kill', 'postgres-cut', 'redis-restart'];

export interface ChaosOptions {
  /** The apps' database, already created (migrated or empty: the first app migrates it). */
  databaseUrl: string;
  /** How long checkouts are started and faults injected. */
  durationMs: number;
  processes: number;
  /** New checkouts per second, spread over the scenarios and both modes. */
  checkoutsPerSecond: number;
  /** The pause between two injected faults. */
  faultEveryMs: number;
  /** How long the system may take to finish everything once the faults stop. */
  settleTimeoutMs?: number;
  /** A wrong outcome planted after the run, to see the check catch it (it must then report it). */
  plant?: 'extra-email' | 'wrong-status';
  log?: (line: string) => void;
}

export interface ChaosSummary {
  checkouts: number;
  byScenario: Record<string, number>;
  /** How many of each fault were injected. */
  faults: Record<string, number>;
  /** Checkouts that ended in another status than their scenario's. */
  wrong: Array<{ id: string; mode: Mode; scenario: string; expected: string; status: string }>;
  /** Checkouts not terminal once everything settled (PENDING, or INTERVENTION). */
  stuck: Array<{ id: string; mode: Mode; scenario: string; status: string }>;
  /** What the invariant checker reports: held money, double effects, missing ones. */
  violations: Array<Record<string, unknown>>;
  /**
   * Buyers whose emails, told apart by Message-ID, are not one per COMPLETED checkout (zero
   * otherwise): an email missing, or one that should not exist.
   */
  emails: Array<{ to: string; received: number; expected: number }>;
  /**
   * Checkouts whose invoices at the fiscal authority, counted at its listing, are not one for a
   * COMPLETED checkout and none otherwise: an invoice missing, doubled, or for no sale.
   */
  invoices: Array<{ id: string; status: string; invoices: number }>;
  /**
   * Second copies of an email, with its Message-ID: a kill between the SMTP server's answer and
   * the record of the hand-over sends it again, the one thing the product does not promise
   * (docs/guarantees.md, "What is not promised"); at most one a kill (`resentAllowed`). A cut connection
   * sends nothing twice: the record waits for Postgres, and the retry finds it.
   */
  resent: Array<{ to: string; messageId: string; copies: number }>;
  resentAllowed: number;
  deadLetters: number;
  /** What was still in flight when the run gave up waiting for quiet; empty when it got quiet. */
  inFlight: string[];
  seconds: number;
}

const copiesResent = (s: ChaosSummary) => s.resent.reduce((sum, r) => sum + r.copies - 1, 0);

export const chaosFailed = (s: ChaosSummary): boolean =>
  s.wrong.length + s.stuck.length + s.violations.length + s.emails.length + s.invoices.length + s.inFlight.length > 0 ||
  copiesResent(s) > s.resentAllowed;

export function formatSummary(s: ChaosSummary): string {
  const faults = Object.entries(s.faults)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const scenarios = Object.entries(s.byScenario)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  const held = s.violations.filter((v) => /held|authoriz/i.test(String(v.rule))).length;
  const doubles = s.violations.filter((v) => /twice|double|exactly one/i.test(String(v.rule))).length;
  const lines = [
    `chaos: ${s.checkouts} checkouts in ${s.seconds} s (${scenarios})`,
    `faults injected: ${faults}`,
    `wrong status: ${s.wrong.length}`,
    `stuck: ${s.stuck.length}`,
    `held money: ${held}`,
    `double effects: ${doubles}`,
    `other invariant violations: ${s.violations.length - held - doubles}`,
    `email counts off: ${s.emails.length}`,
    `invoice counts off, at the authority: ${s.invoices.length}`,
    `emails sent again, same Message-ID: ${copiesResent(s)} (at most ${s.resentAllowed}, one a kill)`,
    `dead letters: ${s.deadLetters}`,
    `still in flight: ${s.inFlight.length === 0 ? 'nothing' : s.inFlight.join('; ')}`,
    chaosFailed(s) ? 'RESULT: WRONG' : 'RESULT: nothing lost, doubled or held',
  ];
  const details = [...s.wrong, ...s.stuck, ...s.violations, ...s.emails, ...s.invoices, ...s.resent].slice(0, 20);
  return [...lines, ...details.map((d) => `  ${JSON.stringify(d)}`)].join('\n');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Checkouts of every scenario in both modes, through several app processes on one Postgres
 * (reached through a proxy that can cut its connections) and one private Redis, while processes
 * are killed with SIGKILL and restarted, Redis is flushed or restarted empty, and Postgres
 * connections are cut. Then, once everything settled and nothing is in flight, it checks every
 * checkout's status, the invariant checker and the emails an SMTP server actually received.
 */
/**
 * What the processes of a chaos run (one host or several) run with: quiet logs, short redelivery
 * and sweeps, and sagas with sends to spare, since restarts take seconds on a loaded machine.
 */
export const CHAOS_SETTINGS = {
  LOG_LEVEL: 'error',
  OUTBOX_RELAY_INTERVAL_MS: '200',
  OUTBOX_REDELIVER_AFTER_MS: '3000',
  OUTBOX_SWEEP_INTERVAL_MS: '1000',
  SAGA_STEP_TIMEOUT_MS: '3000',
  SAGA_STEP_ATTEMPTS: '8',
  SAGA_PIVOT_ATTEMPTS: '10',
  SAGA_COMPENSATION_ATTEMPTS: '10',
  // The invoice waits out an authority cut apart as it would an outage, in seconds here, not hours.
  SAGA_OUTAGE_MAX_WAIT_MS: '12000',
  OUTBOX_OUTAGE_MAX_WAIT_MS: '12000',
  SAGA_SWEEP_INTERVAL_MS: '250',
  CHECKOUT_STALLED_AFTER_MS: '600000',
};

export async function runChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const log = options.log ?? (() => undefined);
  const startedAt = Date.now();
  const redis = await RedisServer.start();
  const smtp = await SmtpSink.start();
  const target = new URL(options.databaseUrl);
  const proxy = new TcpProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
  await proxy.open();
  const proxied = new URL(options.databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const pool = new Pool({ connectionString: options.databaseUrl, max: 2 });
  const queuePrefix = `chaos-${randomBytes(3).toString('hex')}`;
  const env = {
    DATABASE_URL: proxied.toString(),
    DATABASE_POOL_SIZE: '6',
    REDIS_URL: redis.url,
    QUEUE_PREFIX: queuePrefix,
    SMTP_URL: smtp.url,
    ADMIN_TOKEN,
    ...CHAOS_SETTINGS,
    OUTBOX_JOB_LOCK_MS: '2000',
  };

  const slots: Array<AppProcess | undefined> = [];
  const boot = async (slot: number) => {
    const app = await AppProcess.start(env);
    // One that never gets healthy is in no slot, where the end stops them: stopped here.
    await app.untilHealthy(90_000).catch(async (error: unknown) => {
      await app.stop();
      throw error;
    });
    slots[slot] = app;
  };
  const live = () => slots.filter((app): app is AppProcess => app !== undefined);
  const anyClient = () => {
    const apps = live();
    return apps.length > 0 ? new ProcessClient(apps[Math.floor(Math.random() * apps.length)].url) : undefined;
  };

  const load = new CheckoutLoad(anyClient, options.checkoutsPerSecond);
  const faults: Record<ChaosFault, number> = { kill: 0, 'redis-flush': 0, 'redis-restart': 0, 'postgres-cut': 0 };
  const restarts: Array<Promise<void>> = [];
  const planted = options.plant;

  try {
    await boot(0); // alone first: it migrates an empty database
    await Promise.all(Array.from({ length: options.processes - 1 }, (_, i) => boot(i + 1)));
    log(`${options.processes} processes up after ${Math.round((Date.now() - startedAt) / 1000)} s`);

    const inject = async (until: number) => {
      let round = 0;
      while (Date.now() < until) {
        await pause(options.faultEveryMs);
        const fault = FAULTS[round++ % FAULTS.length];
        faults[fault] += 1;
        log(`fault: ${fault}`);
        if (fault === 'kill') {
          const candidates = slots.flatMap((app, slot) => (app ? [slot] : []));
          if (candidates.length <= 1) continue; // keep one process serving requests
          const slot = candidates[Math.floor(Math.random() * candidates.length)];
          const app = slots[slot]!;
          slots[slot] = undefined;
          await app.stop();
          restarts.push(boot(slot));
        } else if (fault === 'redis-flush') {
          await redis.flushAll();
        } else if (fault === 'redis-restart') {
          await redis.restart();
        } else {
          await proxy.close();
          await pause(1_500);
          await proxy.open();
        }
      }
    };
    load.start();
    await inject(Date.now() + options.durationMs);
    await Promise.all(restarts);
    await load.stop();
    log(`faults stopped; ${load.checkouts.length} checkouts accepted; waiting for them to end`);

    return await settleAndVerify({
      checkouts: load.checkouts,
      pool,
      smtp,
      client: anyClient,
      faults,
      resentAllowed: faults.kill,
      redisUrl: redis.url,
      queuePrefix,
      settleTimeoutMs: options.settleTimeoutMs,
      plant: planted && (() => plant(planted, load.checkouts, pool, smtp)),
      authorityUrl: runAuthorityUrl(),
      startedAt,
      log,
    });
  } finally {
    await Promise.allSettled(restarts);
    await Promise.all(live().map((app) => app.stop()));
    await pool.end();
    await proxy.close();
    await redis.stop();
    await smtp.stop();
  }
}

/**
 * Checkouts of every scenario in turn, in both modes, at a steady rate, through whichever process
 * `client` gives (none up: the request waits). A request whose answer was lost (a process killed,
 * a network cut) is sent again later with the same Idempotency-Key, to any process: the same
 * checkout. `stop` ends the load once every request has been answered.
 */
export class CheckoutLoad {
  readonly checkouts: StartedCheckout[] = [];
  private readonly unanswered: CheckoutRequest[] = [];
  private readonly requests: Array<Promise<void>> = [];
  private sent = 0;
  private stopped = false;
  private running?: Promise<void>;

  constructor(
    private readonly client: () => ProcessClient | undefined,
    private readonly perSecond: number,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  /** Stops starting checkouts, and resolves once every request sent was answered (a minute at most). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.all(this.requests);
    await eventually(
      async () => {
        for (const request of this.unanswered.splice(0)) await this.send(request);
        return this.unanswered.length === 0;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'every checkout request to be answered' },
    );
  }

  private async loop(): Promise<void> {
    const interval = 1_000 / this.perSecond;
    while (!this.stopped) {
      const scenario = SCENARIOS[this.sent % SCENARIOS.length];
      const mode = MODES[Math.floor(this.sent / SCENARIOS.length) % MODES.length];
      this.sent += 1;
      this.requests.push(
        (async () => {
          const client = this.client();
          const request = client ? await prepareScenario(client, scenario, mode).catch(() => undefined) : undefined;
          if (request) await this.send(request);
        })(),
      );
      for (const request of this.unanswered.splice(0, 2)) this.requests.push(this.send(request));
      await pause(interval);
    }
  }

  private async send(request: CheckoutRequest): Promise<void> {
    const client = this.client();
    try {
      if (!client) throw new Error('no process up');
      this.checkouts.push(await startCheckout(client, request));
    } catch {
      this.unanswered.push(request); // the same key again later, to another process
    }
  }
}

/**
 * Once the faults stopped: waits for every checkout to end and for the system to be quiet, then
 * checks each checkout's status, the invariant checker, and the emails the SMTP server received.
 */
export async function settleAndVerify(run: {
  checkouts: StartedCheckout[];
  /** The deployment's database, from the test. */
  pool: Pool;
  smtp: Pick<SmtpSink, 'received'>;
  client: () => ProcessClient | undefined;
  faults: Record<string, number>;
  /** Second copies of an email that the faults may explain (one a kill). */
  resentAllowed: number;
  redisUrl: string;
  queuePrefix: string;
  settleTimeoutMs?: number;
  /** A wrong outcome planted once quiet, before the checks: they must report it. */
  plant?: () => Promise<void>;
  /** The fiscal authority the apps invoice at (FISCAL_AUTHORITY_URL): the invoices are counted there. */
  authorityUrl: string;
  startedAt: number;
  log: (line: string) => void;
}): Promise<ChaosSummary> {
  const { checkouts, pool } = run;
  const ids = checkouts.map((c) => c.id);
  await eventually(
    async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM checkout.checkouts WHERE id = ANY($1) AND status = 'PENDING'`,
        [ids],
      );
      if (rows[0].n > 0) throw new Error(`${rows[0].n} checkouts still PENDING`);
    },
    { timeoutMs: run.settleTimeoutMs ?? 90_000, intervalMs: 500, what: 'every checkout to end' },
  ).catch((error: unknown) => run.log(String(error)));
  const system: QuietTarget = {
    database: { query: async <Row>(sql: string) => (await pool.query(sql)).rows as Row[] },
    queuePrefix: run.queuePrefix,
  };
  let stillInFlight: string[] = [];
  await quiet(system, { redisUrl: run.redisUrl, stableForMs: 5_000, timeoutMs: 60_000 }).catch(async () => {
    stillInFlight = await stillBusy(system, { redisUrl: run.redisUrl });
  });

  if (run.plant) await run.plant();
  return verify({
    checkouts,
    pool,
    smtp: run.smtp,
    client: run.client,
    authorityUrl: run.authorityUrl,
    faults: run.faults,
    resentAllowed: run.resentAllowed,
    inFlight: stillInFlight,
    seconds: Math.round((Date.now() - run.startedAt) / 1_000),
  });
}

async function plant(
  kind: 'extra-email' | 'wrong-status',
  checkouts: StartedCheckout[],
  pool: Pool,
  smtp: Pick<SmtpSink, 'received'> & { url?: string },
) {
  const completed = checkouts.find((c) => c.expected === 'COMPLETED')!;
  if (kind === 'extra-email') {
    const transport = createTransport(smtp.url!);
    await transport.sendMail({ from: 'planted@example.com', to: completed.email, subject: 'planted', text: 'x' });
    transport.close();
  } else {
    await pool.query(`UPDATE checkout.checkouts SET status = 'FAILED' WHERE id = $1`, [completed.id]);
  }
}

/**
 * The emails each recipient got, told apart by Message-ID, against how many each should have
 * got (none for anyone not listed): `emails` lists the recipients whose count of distinct emails
 * is off, `resent` the emails that came more than once (the same Message-ID: a second copy).
 */
export function tellEmailsApart(
  received: ReadonlyArray<{ to: string[]; headers: ReadonlyMap<string, string> }>,
  expected: ReadonlyMap<string, number>,
): Pick<ChaosSummary, 'emails' | 'resent'> {
  const copies = new Map<string, Map<string, number>>();
  for (const [index, mail] of received.entries()) {
    // A message without a Message-ID is a different email from every other.
    const messageId = mail.headers.get('message-id') ?? `(no Message-ID, message ${index + 1})`;
    for (const to of mail.to) {
      const ofRecipient = copies.get(to) ?? new Map<string, number>();
      ofRecipient.set(messageId, (ofRecipient.get(messageId) ?? 0) + 1);
      copies.set(to, ofRecipient);
    }
  }
  const emails = [...new Set([...copies.keys(), ...expected.keys()])]
    .map((to) => ({ to, received: copies.get(to)?.size ?? 0, expected: expected.get(to) ?? 0 }))
    .filter((e) => e.received !== e.expected);
  const resent = [...copies].flatMap(([to, ofRecipient]) =>
    [...ofRecipient].filter(([, n]) => n > 1).map(([messageId, n]) => ({ to, messageId, copies: n })),
  );
  return { emails, resent };
}

async function verify(run: {
  checkouts: StartedCheckout[];
  pool: Pool;
  smtp: Pick<SmtpSink, 'received'>;
  /** A client of a process that is up: one may have just been restarted. */
  client: () => ProcessClient | undefined;
  authorityUrl: string;
  faults: Record<string, number>;
  resentAllowed: number;
  inFlight: string[];
  seconds: number;
}): Promise<ChaosSummary> {
  const { checkouts, pool, smtp } = run;
  const { rows } = await pool.query<{ id: string; status: string }>(
    `SELECT id, status FROM checkout.checkouts WHERE id = ANY($1)`,
    [checkouts.map((c) => c.id)],
  );
  const status = new Map(rows.map((row) => [row.id, row.status]));
  const ended = (c: StartedCheckout) => ['COMPLETED', 'FAILED', 'REJECTED'].includes(status.get(c.id) ?? '');
  const stuck = checkouts
    .filter((c) => !ended(c))
    .map((c) => ({ id: c.id, mode: c.mode, scenario: c.scenario, status: status.get(c.id) ?? 'missing' }));
  const wrong = checkouts
    .filter((c) => ended(c) && status.get(c.id) !== c.expected)
    .map((c) => ({ id: c.id, mode: c.mode, scenario: c.scenario, expected: c.expected, status: status.get(c.id)! }));

  // Each buyer is unique to one checkout: one email per COMPLETED checkout, none otherwise.
  const { emails, resent } = tellEmailsApart(
    smtp.received,
    new Map(checkouts.filter((c) => c.email).map((c) => [c.email!, status.get(c.id) === 'COMPLETED' ? 1 : 0])),
  );

  const invoices = await invoicesAtTheAuthority(
    run.authorityUrl,
    checkouts.map((c) => ({ id: c.id, status: status.get(c.id) ?? 'missing' })),
  );

  const report = await eventually(
    async () => {
      const client = run.client();
      if (!client) throw new Error('no process up');
      return client.invariants();
    },
    { timeoutMs: 30_000, what: 'the invariant report' },
  );
  // With the apps on a card gateway service (CARD_GATEWAY_URL), the checker counts the money at
  // its listing itself: the report is the whole judgement in both deployments.
  const { violations } = report;
  const {
    rows: [{ dead }],
  } = await pool.query<{ dead: number }>(`SELECT count(*)::int AS dead FROM outbox.dead_letters`);
  const byScenario: Record<string, number> = {};
  for (const c of checkouts) {
    const key = `${c.scenario} (${c.mode})`;
    byScenario[key] = (byScenario[key] ?? 0) + 1;
  }
  return {
    checkouts: checkouts.length,
    byScenario,
    faults: run.faults,
    wrong,
    stuck,
    violations,
    emails,
    invoices,
    resent,
    resentAllowed: run.resentAllowed,
    deadLetters: dead,
    inFlight: run.inFlight,
    seconds: run.seconds,
  };
}

/**
 * The checkouts whose invoices at the authority are off: one for a COMPLETED checkout, none for
 * any other. Counted at its listing, eight checkouts at a time.
 */
async function invoicesAtTheAuthority(
  authorityUrl: string,
  checkouts: Array<{ id: string; status: string }>,
): Promise<ChaosSummary['invoices']> {
  const off: ChaosSummary['invoices'] = [];
  for (let i = 0; i < checkouts.length; i += 8) {
    await Promise.all(
      checkouts.slice(i, i + 8).map(async ({ id, status }) => {
        const invoices = await invoicesAt(authorityUrl, id);
        if (invoices !== (status === 'COMPLETED' ? 1 : 0)) off.push({ id, status, invoices });
      }),
    );
  }
  return off;
}
