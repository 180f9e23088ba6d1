import type { PoolClient } from 'pg';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { metricValue } from '../support/metrics';
import { TestApp } from '../support/test-app';

/** Checkouts of other buyers that fill the table: enough that reading it whole shows, few enough to fill in seconds. */
const OTHERS = 100_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** What a plan read: the rows its scans (of `table`, or of any) went through, kept or filtered out, and the buffers it touched. */
function readBy(plan: PlanNode, table?: string): { rows: number; buffers: number } {
  const rows = (node: PlanNode): number =>
    (node['Relation Name'] !== undefined && (table === undefined || node['Relation Name'] === table)
      ? node['Actual Rows'] * node['Actual Loops'] +
        (node['Rows Removed by Filter'] ?? 0) +
        (node['Rows Removed by Index Recheck'] ?? 0)
      : 0) + (node.Plans ?? []).reduce((sum, child) => sum + rows(child), 0);
  return { rows: rows(plan), buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'] };
}

/** A statement as the app sent it, with its parameters. */
interface Sent {
  sql: string;
  params: unknown[];
}

/** Every statement the app sends to Postgres while `act` runs. */
async function statementsDuring(act: () => Promise<unknown>): Promise<Sent[]> {
  const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query');
  try {
    await act();
    return spy.mock.calls.map(([sql, params]) => ({ sql, params: (params as unknown[] | undefined) ?? [] }));
  } finally {
    spy.mockRestore();
  }
}

/**
 * The plan of `sent` run as a prepared statement, as the app runs it: with a custom plan (its
 * first runs) or the generic plan Postgres may settle on after five.
 */
async function explainPrepared(
  client: PoolClient,
  sent: Sent,
  mode: 'force_custom_plan' | 'force_generic_plan',
): Promise<PlanNode> {
  const literal = (value: unknown) =>
    value === null ? 'NULL' : client.escapeLiteral(value instanceof Date ? value.toISOString() : String(value));
  await client.query(`SET plan_cache_mode = ${mode}`);
  await client.query(`PREPARE sent AS ${sent.sql}`);
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE sent${sent.params.length > 0 ? `(${sent.params.map(literal).join(', ')})` : ''}`,
    );
    return rows[0]['QUERY PLAN'][0].Plan;
  } finally {
    await client.query('DEALLOCATE sent');
  }
}

/** Scrapes that come at once, as a flood of them would. */
const FLOOD = 50;

/** What each distinct statement of a reading read on the tables as they were: its text, and its rows and buffers (the larger of a custom and a generic plan). */
async function costOf(database: TestApp['database'], statements: Sent[]) {
  const connection = await database.pool.connect();
  try {
    const costs: Array<{ sql: string; rows: number; buffers: number }> = [];
    const distinct = [...new Map(statements.map((sent) => [sent.sql, sent])).values()];
    for (const sent of distinct) {
      const plans = [
        readBy(await explainPrepared(connection, sent, 'force_custom_plan')),
        readBy(await explainPrepared(connection, sent, 'force_generic_plan')),
      ];
      costs.push({
        sql: sent.sql.replace(/\s+/g, ' ').trim(),
        rows: Math.max(...plans.map((plan) => plan.rows)),
        buffers: Math.max(...plans.map((plan) => plan.buffers)),
      });
    }
    return costs.sort((a, b) => a.sql.localeCompare(b.sql));
  } finally {
    connection.release();
  }
}

/**
 * Issue 23, "reading is cheap": what a reader can ask for costs the same on a large table as on a
 * small one, and a flood of scrapes costs what one does. The tables first hold a few open
 * checkouts, sagas, messages and dead letters; then 100k finished checkouts of other buyers (the
 * buyer's own the oldest of all: the worst case for a walk of the table newest first), their
 * sagas, messages and dead letters long dealt with. The app runs the default
 * METRICS_READ_INTERVAL_MS, and the api role alone: nothing else reads or writes meanwhile.
 */
describe('Reading a large table', () => {
  let app: TestApp;
  let client: CheckoutClient;
  let buyer: { id: string; token: string };
  let flood: { statuses: number[]; sent: Sent[] };
  let small: Awaited<ReturnType<typeof costOf>>;
  let large: Awaited<ReturnType<typeof costOf>>;

  const scrape = () => app.http().get('/metrics');

  beforeAll(async () => {
    app = await TestApp.start({ env: { APP_ROLES: 'api', METRICS_READ_INTERVAL_MS: undefined } });
    client = new CheckoutClient(app);
    await app.ready();
    buyer = await client.createUser();
    // Open things, as a running deployment has some: a checkout of each mode PENDING (one for an
    // hour: stuck), one in INTERVENTION, a saga running for two hours, a message not yet relayed, a dead letter.
    await app.database.query(
      `INSERT INTO checkout.checkouts (id, user_id, plan_id, payment_method, mode, status, step, correlation_id, created_at)
       VALUES (gen_random_uuid(), gen_random_uuid(), 'basic', 'card', 'choreography', 'PENDING', 'billing.authorize-payment', 'c1', now() - interval '1 hour'),
              ('00000000-0000-4000-8000-000000000001', gen_random_uuid(), 'basic', 'card', 'orchestration', 'PENDING', 'billing.authorize-payment', 'c2', now()),
              (gen_random_uuid(), gen_random_uuid(), 'basic', 'card', 'orchestration', 'INTERVENTION', 'billing.capture-payment', 'c3', now())`,
    );
    await app.database.query(
      `INSERT INTO checkout.sagas (id, status, current_step, attempts, version, created_at)
       VALUES ('00000000-0000-4000-8000-000000000001', 'RUNNING', 'billing.authorize-payment', 1, 1, now() - interval '2 hours')`,
    );
    await app.database.query(
      `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id)
       VALUES (gen_random_uuid(), 'event', 'checkout.checkout-requested.v1', 'a', '{}', 'c1')`,
    );
    await app.database.query(
      `INSERT INTO outbox.dead_letters (id, message_id, consumer, type, correlation_id, message, error, attempts, first_failed_at, last_failed_at)
       VALUES (gen_random_uuid(), gen_random_uuid(), 'ledger.apply-entry', 'checkout.checkout-requested.v1', 'c1', '{}', 'boom', 5, now(), now())`,
    );

    // A flood of scrapes on a process that has not read anything yet.
    const scrapes: Array<{ status: number }> = [];
    flood = {
      sent: await statementsDuring(async () =>
        scrapes.push(...(await Promise.all(Array.from({ length: FLOOD }, () => scrape())))),
      ),
      statuses: [],
    };
    flood.statuses = scrapes.map(({ status }) => status);
    small = await costOf(app.database, flood.sent);

    await app.database.query(
      `INSERT INTO checkout.checkouts (id, user_id, plan_id, payment_method, mode, status, step, correlation_id, created_at)
       SELECT gen_random_uuid(), $1, 'basic', 'card', 'choreography', 'COMPLETED', 'notifications.send-email',
              gen_random_uuid()::text, now() - interval '1 year' + i * interval '1 second'
         FROM generate_series(1, 5) AS i`,
      [buyer.id],
    );
    await app.database.query(
      `INSERT INTO checkout.checkouts (id, user_id, plan_id, payment_method, mode, status, step, correlation_id, created_at)
       SELECT gen_random_uuid(), gen_random_uuid(), 'basic', 'card',
              CASE WHEN i % 2 = 0 THEN 'choreography' ELSE 'orchestration' END,
              CASE WHEN i % 10 = 0 THEN 'FAILED' ELSE 'COMPLETED' END, 'notifications.send-email',
              gen_random_uuid()::text, now() - interval '300 days' + i * interval '1 minute'
         FROM generate_series(1, $1::int) AS i`,
      [OTHERS],
    );
    await app.database.query(
      `INSERT INTO checkout.sagas (id, status, current_step, attempts, version)
       SELECT id, CASE WHEN status = 'FAILED' THEN 'COMPENSATED' ELSE 'COMPLETED' END, step, 1, 1
         FROM checkout.checkouts WHERE mode = 'orchestration' AND status IN ('COMPLETED', 'FAILED')
        LIMIT $1`,
      [OTHERS / 5],
    );
    await app.database.query(
      `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id, published_at, delivered_at)
       SELECT gen_random_uuid(), 'event', 'checkout.checkout-requested.v1', i::text, '{}', i::text, now(), now()
         FROM generate_series(1, $1::int) AS i`,
      [OTHERS / 5],
    );
    await app.database.query(
      `INSERT INTO outbox.dead_letters (id, message_id, consumer, type, correlation_id, message, error, attempts, first_failed_at, last_failed_at, status, resolved_at)
       SELECT gen_random_uuid(), gen_random_uuid(), 'ledger.apply-entry', 'checkout.checkout-requested.v1', i::text, '{}', 'boom', 5, now(), now(),
              CASE WHEN i % 2 = 0 THEN 'redriven' ELSE 'discarded' END, now()
         FROM generate_series(1, $1::int) AS i`,
      [OTHERS / 20],
    );
    await app.database.query('ANALYZE checkout.checkouts, checkout.sagas, outbox.messages, outbox.dead_letters');

    // The scrapes that read again, once the figures read before are older than the interval: each
    // figure keeps its own time, so one scrape may read some and the next the others.
    const next = new Map<string, Sent>();
    await eventually(
      async () => {
        for (const sent of await statementsDuring(() => scrape().expect(200))) next.set(sent.sql, sent);
        expect([...next.keys()].sort()).toEqual([...new Set(flood.sent.map(({ sql }) => sql))].sort());
      },
      { intervalMs: 250, what: 'scrapes that read every figure again' },
    );
    large = await costOf(app.database, [...next.values()]);
  }, 180_000);
  afterAll(() => app.stop());

  it('when a flood of scrapes comes at once, then each is answered and the stores are read once for all of them', async () => {
    expect(flood.statuses).toEqual(Array.from({ length: FLOOD }, () => 200));
    const texts = flood.sent.map(({ sql }) => sql);
    // One statement a figure: none sent twice.
    expect(texts).toEqual([...new Set(texts)]);
    expect(texts.length).toBeLessThanOrEqual(5);

    const { text } = await scrape().expect(200);
    expect(text).toContain('checkouts{mode="choreography",status="PENDING"} 1');
    expect(text).toContain('checkouts_stuck{mode="choreography"} 1');
    expect(text).toContain('checkouts{mode="orchestration",status="INTERVENTION"} 1');
    expect(text).toContain('outbox_dead_letters{consumer="ledger.apply-entry"} 1');
    // The ages the alerts read (ops/prometheus/alerts.yml), from the same statements.
    const age = (name: string, labels: Record<string, string>) => metricValue(app, name, labels);
    expect(await age('checkout_oldest_pending_age_seconds', { mode: 'choreography' })).toBeGreaterThanOrEqual(3_600);
    expect(await age('checkout_oldest_pending_age_seconds', { mode: 'orchestration' })).toBeLessThan(600);
    expect(await age('saga_oldest_age_seconds', { state: 'RUNNING' })).toBeGreaterThanOrEqual(7_200);
    expect(await age('saga_oldest_age_seconds', { state: 'COMPENSATING' })).toBe(0);
  });

  it('when the tables hold 100k finished checkouts and what came with them, then a scrape reads no more rows than on the small tables, and a handful of buffers', () => {
    expect(large.map(({ sql }) => sql)).toEqual(small.map(({ sql }) => sql));
    const compared = large.map((cost, i) => ({
      sql: cost.sql,
      rows: { small: small[i].rows, large: cost.rows },
      buffers: cost.buffers,
      cheap: cost.rows <= small[i].rows && cost.buffers <= 16,
    }));
    expect(compared).toEqual(compared.map((cost) => ({ ...cost, cheap: true })));
  });

  it("when a buyer lists their checkouts among many others', then the listing reads a handful of rows and buffers, with a custom or a generic plan", async () => {
    const sent = await statementsDuring(() =>
      client.as(buyer.id, app.http().get('/checkouts')).query({ limit: 20 }).expect(200),
    );
    const listing = sent.filter(({ sql }) => /FROM checkout\.checkouts/.test(sql));
    expect(listing).toHaveLength(1);

    const connection = await app.database.pool.connect();
    try {
      for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
        const plan = await explainPrepared(connection, listing[0], mode);
        const read = readBy(plan, 'checkouts');

        // The buyer's five rows, and the few pages of the index and the table that hold them.
        expect({ mode, returned: plan['Actual Rows'], ...read, cheap: read.rows <= 5 && read.buffers <= 16 }).toEqual({
          mode,
          returned: 5,
          ...read,
          cheap: true,
        });
      }
    } finally {
      connection.release();
    }
  });
});
