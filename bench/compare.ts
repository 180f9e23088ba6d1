import type { INestApplicationContext } from '@nestjs/common';
import { benchParticipants } from './bench-participants';
import { DataSource } from 'typeorm';
import { type FaultRule, Faults } from '../src/infra/faults/faults';
import { CheckoutApi } from '../src/modules/checkout';
import { IdentityApi } from '../src/modules/identity';
import { Invariants } from '../src/operations/invariants';
import {
  BENCH_DATABASE_URL,
  cleanRedis,
  machine,
  migrateBenchDatabase,
  distribution,
  type Distribution,
  recreateBenchDatabase,
  startApp,
  statsSettle,
  transactionsCommitted,
  until,
} from './bench-env';
import { FINAL_STATUSES, tally } from './checkout-load';
import { phase, track } from './progress';
import { printTable, writeFigures } from './report';

/**
 * `npm run compare`: the same scenarios through both coordination styles, in one run, on one
 * app: every business outcome (many of each, at once) and every injected step fault (one at a
 * time). Prints, per mode, the outcomes, how long checkouts took, how many messages and Postgres
 * transactions a checkout costs, and whether the invariants hold; writes the figures as JSON, the
 * printed table with them (exercise 14 checks the figures a learner quotes against it).
 *
 * Shorter runs: COMPARE_REPEAT (each business scenario's count), COMPARE_FAULTS (the names of the
 * fault scenarios to run, comma-separated; all by default); COMPARE_OUTPUT names the JSON file
 * (by default a new bench/results/compare-<time>.json, the newest of which the console draws).
 */

const MODES = ['choreography', 'orchestration'] as const;
type Mode = (typeof MODES)[number];
const REPEAT = Number(process.env.COMPARE_REPEAT ?? 20);
/** Business checkouts in flight at once: a steady load, not a stampede. */
const IN_FLIGHT = Number(process.env.COMPARE_IN_FLIGHT ?? 8);
/** The fault scenarios to run, by name (`content.grant-access timeout-after`, `void fails once`); all when unset or empty. */
const ONLY_FAULTS = process.env.COMPARE_FAULTS?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);

/** The settings both modes run with; the short timeouts keep the fault scenarios quick. */
const SETTINGS = {
  LOG_LEVEL: 'error',
  APP_ROLES: 'api,relay,worker,orchestrator',
  FAULT_INJECTION: 'true',
  OUTBOX_RELAY_INTERVAL_MS: '200',
  OUTBOX_ATTEMPTS: '3',
  OUTBOX_BACKOFF_MS: '50',
  SAGA_STEP_TIMEOUT_MS: '1000',
  SAGA_SWEEP_INTERVAL_MS: '100',
  SAGA_STEP_ATTEMPTS: '3',
  SAGA_PIVOT_ATTEMPTS: '3',
  SAGA_COMPENSATION_ATTEMPTS: '3',
  CHECKOUT_STALLED_AFTER_MS: '3000',
};

interface Buyers {
  br: string;
  jp: string;
  pt: string;
  blocked: string;
}

interface Scenario {
  name: string;
  request: (buyers: Buyers) => { userId: string; planId: string; paymentMethod: string };
  faults?: FaultRule[];
}

const ok = (b: Buyers) => ({ userId: b.pt, planId: 'basic', paymentMethod: 'pm_card_ok' });

const BUSINESS: Scenario[] = [
  { name: 'happy path', request: (b) => ({ userId: b.br, planId: 'premium', paymentMethod: 'pm_card_ok' }) },
  { name: 'not licensed', request: (b) => ({ userId: b.jp, planId: 'premium', paymentMethod: 'pm_card_ok' }) },
  { name: 'card declined', request: (b) => ({ ...ok(b), paymentMethod: 'pm_card_declined' }) },
  { name: 'capture declined', request: (b) => ({ ...ok(b), paymentMethod: 'pm_card_capture_declined' }) },
  { name: 'blocked buyer', request: (b) => ({ ...ok(b), userId: b.blocked }) },
  { name: 'unknown buyer', request: (b) => ({ ...ok(b), userId: '00000000-0000-4000-8000-000000000000' }) },
];

const STEPS = [
  'identity.verify-user',
  'billing.authorize-payment',
  'content.grant-access',
  'billing.capture-payment',
  'content.activate-access',
  'notifications.send-welcome-email',
];

const ALL_FAULTS: Scenario[] = [
  ...STEPS.flatMap((step) =>
    (['fail', 'timeout-before', 'timeout-after'] as const).map((action) => ({
      name: `${step} ${action}`,
      request: ok,
      faults: [{ point: `step:${step}`, action, times: 1 }],
    })),
  ),
  {
    name: 'void fails once',
    request: (b: Buyers) => ({ userId: b.jp, planId: 'premium', paymentMethod: 'pm_card_ok' }),
    faults: [{ point: 'compensation:billing.void-authorization', action: 'fail', times: 1 }],
  },
  {
    name: 'revoke fails once',
    request: (b: Buyers) => ({ ...ok(b), paymentMethod: 'pm_card_capture_declined' }),
    faults: [{ point: 'compensation:content.revoke-access', action: 'fail', times: 1 }],
  },
];

const unknownFaults = ONLY_FAULTS?.filter((name) => !ALL_FAULTS.some((scenario) => scenario.name === name)) ?? [];
if (unknownFaults.length > 0) {
  throw new Error(
    `COMPARE_FAULTS names no such fault scenario: ${unknownFaults.join(', ')} (there are: ${ALL_FAULTS.map((s) => s.name).join(', ')})`,
  );
}
const FAULTS = ONLY_FAULTS?.length ? ALL_FAULTS.filter((scenario) => ONLY_FAULTS.includes(scenario.name)) : ALL_FAULTS;

interface Outcome {
  id: string;
  scenario: string;
  status: string;
  durationMs: number;
  messages: number;
}

interface ModeReport {
  /** Final statuses: of the business checkouts (REPEAT of each), and of the fault scenarios (one each). */
  outcomes: { business: Record<string, number>; faults: Record<string, number> };
  business: Distribution & {
    /** Every business checkout's duration, sorted: the distribution the console draws. */
    durationsMs: number[];
    messagesPerCheckout: number;
    transactionsPerCheckout: number;
  };
  /** `fault`: the injected rule's action (or `compensation-fail`); absent for business scenarios. */
  scenarios: Record<string, { status: string; durationMs: number; fault?: string }>;
  invariants: { checked: number; violations: number };
}

const committedTransactions = () => transactionsCommitted(BENCH_DATABASE_URL);

async function outcomesOf(dataSource: DataSource, ids: Map<string, string>): Promise<Outcome[]> {
  const rows = await dataSource.query<Array<{ id: string; status: string; ms: number; messages: number }>>(
    `SELECT c.id, c.status,
            extract(epoch FROM coalesce(c.completed_at, c.updated_at) - c.created_at)::float8 * 1000 AS ms,
            (SELECT count(*) FROM outbox.messages m WHERE m.aggregate_id = c.id::text)::int AS messages
       FROM checkout.checkouts c WHERE c.id = ANY($1)`,
    [[...ids.keys()]],
  );
  return rows.map((row) => ({
    id: row.id,
    scenario: ids.get(row.id)!,
    status: row.status,
    durationMs: row.ms,
    messages: row.messages,
  }));
}

async function runMode(app: INestApplicationContext, buyers: Buyers, mode: Mode): Promise<ModeReport> {
  const dataSource = app.get(DataSource);
  const checkouts = app.get(CheckoutApi);
  const faults = app.get(Faults);
  const allDone = (ids: string[]) => async () => {
    const [{ n }] = await dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM checkout.checkouts WHERE id = ANY($1) AND status = ANY($2)`,
      [ids, FINAL_STATUSES],
    );
    return n === ids.length;
  };

  // What the app spends on its own (timers, sweeps) while idle, to subtract from the batch.
  phase(`${mode}: measuring what the idle app commits`);
  await statsSettle();
  const idleFrom = await committedTransactions();
  const idleStarted = Date.now();
  await statsSettle();
  const idlePerMs = ((await committedTransactions()) - idleFrom) / (Date.now() - idleStarted);

  const scenarioOf = new Map<string, string>();
  const before = await committedTransactions();
  const batchStarted = Date.now();
  const queue = BUSINESS.flatMap((scenario) => Array.from({ length: REPEAT }, () => scenario));
  const business: string[] = [];
  const total = queue.length;
  phase(`${mode}: ${total} business checkouts (${BUSINESS.length} scenarios x ${REPEAT}), ${IN_FLIGHT} in flight`);
  let finished = 0;
  const stopTracking = track(`${mode}: business checkouts finished`, total, () => finished);
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let scenario = queue.shift(); scenario; scenario = queue.shift()) {
        const { body } = await checkouts.start({ ...scenario.request(buyers), mode } as never);
        scenarioOf.set(body.id, scenario.name);
        business.push(body.id);
        await until(allDone([body.id]), 120_000, 20);
        finished += 1;
      }
    }),
  );
  stopTracking();
  await statsSettle();
  const transactions = (await committedTransactions()) - before - idlePerMs * (Date.now() - batchStarted);

  const faulted: string[] = [];
  for (const [index, scenario] of FAULTS.entries()) {
    phase(`${mode}: fault ${index + 1} of ${FAULTS.length}, ${scenario.name}`);
    faults.set(scenario.faults ?? []);
    const { body } = await checkouts.start({ ...scenario.request(buyers), mode } as never);
    scenarioOf.set(body.id, scenario.name);
    faulted.push(body.id);
    await until(allDone([body.id]), 120_000, 50);
    faults.clear();
  }

  const outcomes = await outcomesOf(dataSource, scenarioOf);
  const businessOutcomes = outcomes.filter((o) => business.includes(o.id));
  const durations = businessOutcomes.map((o) => o.durationMs).sort((a, b) => a - b);
  const invariants = await app.get(Invariants).check([...scenarioOf.keys()]);
  const count = (outcomes: Outcome[]) => tally(outcomes.map((o) => o.status));
  const byScenario = (list: Outcome[], scenarios: Scenario[]) =>
    Object.fromEntries(
      scenarios.map(({ name, faults: rules }) => {
        const runs = list.filter((o) => o.scenario === name);
        const statuses = [...new Set(runs.map((o) => o.status))].join('/');
        const rule = rules?.[0];
        const fault = rule && (rule.point.startsWith('compensation:') ? 'compensation-fail' : rule.action);
        return [
          name,
          {
            status: statuses,
            durationMs: distribution(runs.map((o) => o.durationMs)).p50,
            ...(fault ? { fault } : {}),
          },
        ];
      }),
    );
  return {
    outcomes: { business: count(businessOutcomes), faults: count(outcomes.filter((o) => faulted.includes(o.id))) },
    business: {
      ...distribution(durations),
      durationsMs: durations.map((ms) => Math.round(ms)),
      messagesPerCheckout: businessOutcomes.reduce((sum, o) => sum + o.messages, 0) / businessOutcomes.length,
      transactionsPerCheckout: transactions / business.length,
    },
    scenarios: {
      ...byScenario(businessOutcomes, BUSINESS),
      ...byScenario(
        outcomes.filter((o) => faulted.includes(o.id)),
        FAULTS,
      ),
    },
    invariants: { checked: invariants.checked, violations: invariants.violations.length },
  };
}

/** One row of the printed table: the figure's name, and what each mode printed for it. */
interface TableRow {
  figure: string;
  choreography: string;
  orchestration: string;
}

/** The table `npm run compare` prints, row by row, as text: what a reader quotes from it. */
function tableOf(reports: Record<Mode, ModeReport>): TableRow[] {
  const rows: TableRow[] = [];
  const add = (figure: string, value: (r: ModeReport) => string) =>
    rows.push({ figure, choreography: value(reports.choreography), orchestration: value(reports.orchestration) });
  const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
  // The business checkouts and the fault scenarios apart: docs/performance.md's table counts them so.
  const tally = (counts: Record<string, number>) =>
    [...FINAL_STATUSES, 'PENDING']
      .filter((status) => counts[status])
      .map((status) => `${counts[status]} ${status.toLowerCase()}`)
      .join(', ');
  add(`business outcomes (${BUSINESS.length * REPEAT})`, (r) => tally(r.outcomes.business));
  add(`fault scenarios (${FAULTS.length}, one each)`, (r) => tally(r.outcomes.faults));
  add(
    `duration p50, ${BUSINESS.length} business scenarios x ${REPEAT}, ${IN_FLIGHT} at once`,
    (r) => `${fixed(r.business.p50)} ms`,
  );
  add('duration p95', (r) => `${fixed(r.business.p95)} ms`);
  add('duration p99', (r) => `${fixed(r.business.p99)} ms`);
  add('messages per checkout', (r) => fixed(r.business.messagesPerCheckout, 1));
  add('Postgres transactions per checkout', (r) => fixed(r.business.transactionsPerCheckout, 1));
  add('invariants', (r) =>
    r.invariants.violations === 0 ? `hold (${r.invariants.checked} checked)` : `${r.invariants.violations} violated`,
  );
  for (const name of Object.keys(reports.choreography.scenarios)) {
    add(name, (r) => `${r.scenarios[name]?.status} (${fixed(r.scenarios[name]?.durationMs)} ms)`);
  }
  return rows;
}

function print(table: TableRow[]): void {
  const cells = table.map((row) => [row.figure, row.choreography, row.orchestration]);
  const scenarios = cells.findIndex(([figure]) => figure === BUSINESS[0].name);
  const rows = [['', ...MODES], ...cells.slice(0, scenarios), ['', '', ''], ['scenario: outcome (p50)', '', '']];
  rows.push(...cells.slice(scenarios));
  console.log(`\ncompare: the same scenarios in both modes, ${new Date().toISOString()}\n`);
  printTable(rows, 'lrr');
}

async function main(): Promise<void> {
  phase('compare: recreating and migrating the bench database, starting the app');
  await recreateBenchDatabase();
  await migrateBenchDatabase();
  const app = await startApp({ ...SETTINGS, ...(await benchParticipants()) });
  try {
    const identity = app.get(IdentityApi);
    const user = async (country: string) =>
      (await identity.createUser({ email: `${country}-${Date.now()}@example.com`, name: country, country })).id;
    const buyers: Buyers = {
      br: await user('BR'),
      jp: await user('JP'),
      pt: await user('PT'),
      blocked: await user('FR'),
    };
    await app.get(DataSource).query(`UPDATE identity.users SET status = 'blocked' WHERE id = $1`, [buyers.blocked]);

    const measuredAt = new Date().toISOString();
    const reports = {} as Record<Mode, ModeReport>;
    for (const mode of MODES) reports[mode] = await runMode(app, buyers, mode);
    phase('compare: done');
    const table = tableOf(reports);
    print(table);
    writeFigures(
      'compare',
      { measuredAt, machine: machine(), settings: SETTINGS, repeat: REPEAT, reports, table },
      process.env.COMPARE_OUTPUT,
    );
  } finally {
    await app.close();
    await cleanRedis();
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
