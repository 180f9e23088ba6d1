import type { PoolClient } from 'pg';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { CheckoutClient } from '../support/checkout-client';
import { TestApp } from '../support/test-app';

/** Checkouts of other buyers that fill the table: enough that reading it whole shows, small enough to fill in seconds. */
const OTHERS = 200_000;

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

/** What a plan read: the rows its scans of a table went through (kept or filtered out), and the buffers it touched. */
function readBy(plan: PlanNode, table: string): { rows: number; buffers: number } {
  const rows = (node: PlanNode): number =>
    (node['Relation Name'] === table
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
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE sent(${sent.params.map(literal).join(', ')})`,
    );
    return rows[0]['QUERY PLAN'][0].Plan;
  } finally {
    await client.query('DEALLOCATE sent');
  }
}

/**
 * Issue 23, "reading is cheap": what a reader can ask for costs the same on a large table as on a
 * small one. The table is filled with other buyers' finished checkouts, older buyers' first: the
 * buyer's own are the oldest of all, the worst case for a walk of the table newest first.
 */
describe('Reading a large table', () => {
  let app: TestApp;
  let client: CheckoutClient;
  let buyer: { id: string; token: string };

  beforeAll(async () => {
    app = await TestApp.start({ env: { APP_ROLES: 'api' } });
    client = new CheckoutClient(app);
    await app.ready();
    buyer = await client.createUser();
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
    await app.database.query('ANALYZE checkout.checkouts');
  });
  afterAll(() => app.stop());

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
