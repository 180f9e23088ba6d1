import { JwtService } from '@nestjs/jwt';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { AppModule } from '../src/app.module';
import { checkEnvironment } from '../src/bootstrap/check-environment';
import { InvalidEnvironmentError } from '../src/config/env';
import { FOREIGN_LOOKS } from '../src/infra/outbox/consuming/job-delivery';
import { OutboxQueues } from '../src/infra/outbox/outbox.queues';
import { MetricsRegistry } from '../src/infra/metrics/metrics.registry';
import { CheckoutClient } from './support/checkout-client';
import { eventually } from './support/eventually';
import { metricValue } from './support/metrics';
import { QUIET_ENV, quiet } from './support/quiet';
import { logs, TestApp, withEnv } from './support/test-app';
import { TestDatabase } from './support/test-database';
import { TEST_DATABASE_URL } from './support/test-env';

/** Every table a request could write, the auth schema's included. */
const TABLES = [
  'identity.users',
  'billing.payments',
  'content.entitlements',
  'notifications.emails',
  'checkout.checkouts',
  'checkout.idempotency_keys',
  'outbox.messages',
  'auth.deployment_secrets',
  'auth.operator_token',
];

/** Secrets published by earlier versions of the repository, as an attacker who read it has them. */
const COMPOSE_TOKEN_SECRET = 'change-me-local-token-secret-0123456789';
const DEVELOPMENT_TOKEN_SECRET = 'dev-only-token-secret-anyone-can-read-it-in-the-sources';
const EXAMPLE_ADMIN_TOKEN = 'change-me-local-admin-token';

/** A password of the deployment's own, as compose makes one; the tests' own (`postgres`) is published. */
const OWN_PASSWORD = randomBytes(16).toString('hex');

/** The scraper's token of the deployment: its own, as production requires. */
const METRICS_TOKEN = randomBytes(24).toString('hex');

/** Scrapes sent at once, as a flood of them would come. */
const SCRAPES = 50;

/**
 * What a deployment made from compose runs with: production, no secret of its own, the made
 * operator token; and /metrics closed with its scraper's token, its figures read at most every
 * METRICS_READ_INTERVAL_MS (the default).
 */
const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  DATABASE_URL: `postgres://deployment:${OWN_PASSWORD}@localhost:5432/checkout`,
  AUTH_TOKEN_SECRET: undefined,
  ADMIN_TOKEN: 'generate',
  FAULT_INJECTION: undefined,
  APP_ROLES: 'api',
  // A blocked buyer's token stops working within this (a minute at most; 30 s by default).
  AUTH_BUYER_STATUS_CACHE_MS: '1000',
  METRICS_TOKEN,
  METRICS_READ_INTERVAL_MS: undefined,
};

/** A comparison as `npm run compare` writes it, with the machine it ran on. */
const COMPARISON = {
  measuredAt: '2026-12-01T00:00:00.000Z',
  machine: { hostname: 'build-host-7', platform: 'Linux 6.1.0-41-amd64 x64', cpus: 2, cpuModel: 'Some CPU' },
  reports: [],
};

interface Target {
  app: TestApp;
  client: CheckoutClient;
  /** A real buyer of the deployment, whose id an attacker may know. */
  victim: { id: string; token: string };
  /** The operator token the deployment made, read from its log as its operator would. */
  operatorToken: string;
  /** A buyer the operator blocked, after their token had been used. */
  blocked: { id: string; token: string };
}

interface Attack {
  name: string;
  /** What the system answers: an HTTP status with a word on it, or the start refused naming a variable. */
  expected: string;
  attempt: (target: Target) => Promise<string>;
}

/** A buyer's token for `userId` as the app's own look, signed with a secret the attacker read. */
const forgedToken = (secret: string, userId: string) =>
  new JwtService({ secret }).sign(
    {},
    { subject: userId, issuer: 'checkout-outbox-saga', audience: 'checkout-buyer', expiresIn: 3_600 },
  );

/** The problems a process started with this environment stops with; '' when it would start. */
async function startRefusal(env: Record<string, string | undefined>): Promise<string> {
  try {
    await withEnv(env, () => checkEnvironment(AppModule));
    return 'started';
  } catch (error) {
    if (!(error instanceof InvalidEnvironmentError)) throw error;
    return `refused to start: ${error.problems.map((problem) => problem.split(':')[0]).join(', ')}`;
  }
}

// prettier-ignore
const ATTACKS: Attack[] = [
  {
    name: "a buyer's token forged with the secret compose published, to read the buyer",
    expected: '401',
    attempt: async ({ app, victim }) =>
      String((await app.http().get(`/users/${victim.id}`).set('authorization', `Bearer ${forgedToken(COMPOSE_TOKEN_SECRET, victim.id)}`)).status),
  },
  {
    name: "a buyer's token forged with the development secret, to check out as the buyer",
    expected: '401',
    attempt: async ({ app, victim }) =>
      String((await app.http().post('/checkouts').set('authorization', `Bearer ${forgedToken(DEVELOPMENT_TOKEN_SECRET, victim.id)}`).send(CheckoutClient.checkoutBody())).status),
  },
  {
    name: 'a production process given the secret compose published',
    expected: 'refused to start: AUTH_TOKEN_SECRET',
    attempt: () => startRefusal({ ...PRODUCTION_ENV, AUTH_TOKEN_SECRET: COMPOSE_TOKEN_SECRET }),
  },
  {
    name: "a production process given the example's admin token",
    expected: 'refused to start: ADMIN_TOKEN',
    attempt: () => startRefusal({ ...PRODUCTION_ENV, ADMIN_TOKEN: EXAMPLE_ADMIN_TOKEN }),
  },
  {
    name: "a production process given the Postgres password compose's test services and the examples publish",
    expected: 'refused to start: DATABASE_URL',
    attempt: () => startRefusal({ ...PRODUCTION_ENV, DATABASE_URL: 'postgres://postgres:postgres@db:5432/checkout' }),
  },
  {
    name: "a production process given a Redis password the docs' examples publish",
    expected: 'refused to start: REDIS_URL',
    attempt: () => startRefusal({ ...PRODUCTION_ENV, REDIS_URL: 'redis://checkout:password@redis:6379' }),
  },
  {
    name: "the example's admin token, to block a buyer",
    expected: '401',
    attempt: async ({ app, victim }) =>
      String((await app.http().post(`/admin/users/${victim.id}/block`).set('authorization', `Bearer ${EXAMPLE_ADMIN_TOKEN}`)).status),
  },
  {
    name: "the example's admin token, to refund a payment",
    expected: '401',
    attempt: async ({ app, victim }) =>
      String((await app.http().post(`/admin/payments/${victim.id}/refund`).set('authorization', `Bearer ${EXAMPLE_ADMIN_TOKEN}`)).status),
  },
  {
    name: 'a production process started with fault injection on, as the example file had it',
    expected: 'refused to start: FAULT_INJECTION',
    attempt: () => startRefusal({ ...PRODUCTION_ENV, FAULT_INJECTION: 'true' }),
  },
  {
    name: 'a crash rule put with the real operator token, in production',
    expected: '404',
    attempt: async ({ app, operatorToken }) =>
      String((await app.http().put('/admin/faults').set('authorization', `Bearer ${operatorToken}`).send({ rules: [{ point: 'relay.after-push', action: 'crash' }] })).status),
  },
  {
    name: 'a blocked buyer starting a checkout',
    expected: '403 buyer-blocked',
    attempt: async ({ app, blocked }) => {
      const { status, body } = await app.http().post('/checkouts').set('authorization', `Bearer ${blocked.token}`).send(CheckoutClient.checkoutBody());
      return `${status} ${body.reason}`;
    },
  },
  {
    name: "a blocked buyer's token, to read their checkouts, once the status the process read has expired",
    expected: '403 buyer-blocked',
    attempt: ({ app, blocked }) =>
      eventually(async () => {
        const { status, body } = await app.http().get('/checkouts').set('authorization', `Bearer ${blocked.token}`);
        expect(status).toBe(403);
        return `${status} ${body.reason}`;
      }, { timeoutMs: 5_000 }),
  },
  {
    name: 'a flood of anonymous /metrics scrapes, on a deployment that closed it with METRICS_TOKEN',
    expected: `${SCRAPES} × 401`,
    attempt: async ({ app }) => {
      const answers = await Promise.all(Array.from({ length: SCRAPES }, () => app.http().get('/metrics')));
      return `${answers.length} × ${[...new Set(answers.map(({ status }) => status))].join(', ')}`;
    },
  },
  {
    name: "a flood of /metrics scrapes with the scraper's token, to tie up Postgres",
    expected: `${SCRAPES} × 200, each figure read at most once per METRICS_READ_INTERVAL_MS`,
    attempt: async ({ app }) => {
      const statements = jest.spyOn(PostgresQueryRunner.prototype, 'query');
      try {
        const started = Date.now();
        const answers = await Promise.all(Array.from({ length: SCRAPES }, () => app.http().get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`)));
        // A flood that lasts longer than the interval (5 s by default) may read each figure again.
        const allowed = Math.floor((Date.now() - started) / 5_000) + 1;
        const readsOf = new Map<string, number>();
        for (const [sql] of statements.mock.calls) readsOf.set(sql, (readsOf.get(sql) ?? 0) + 1);
        const most = Math.max(0, ...readsOf.values());
        const reads = most <= allowed ? 'each figure read at most once per METRICS_READ_INTERVAL_MS' : `a figure read ${most} times`;
        return `${answers.length} × ${[...new Set(answers.map(({ status }) => status))].join(', ')}, ${reads}`;
      } finally {
        statements.mockRestore();
      }
    },
  },
  {
    name: "reading the machine a comparison ran on, anonymously, for its name and kernel",
    expected: '200 {"cpus":2,"cpuModel":"Some CPU","platform":"Linux x64"}',
    attempt: async ({ app }) => {
      const { status, body } = await app.http().get('/comparisons/latest');
      return `${status} ${JSON.stringify(body.comparison.machine)}`;
    },
  },
  {
    name: 'a spoofed X-Forwarded-For, to escape the sign-up limit',
    expected: '429',
    attempt: async ({ app }) =>
      String((await app.http().post('/users').set('x-forwarded-for', '203.0.113.77').send(CheckoutClient.userBody())).status),
  },
];

/**
 * The attacks of issue 23 ("Safe by default"), each against a deployment as compose makes it
 * (production, the deployment's own secret and operator token), each with its refusal, and none
 * writing anything: the rows of every table are counted before and after. Only the api role runs,
 * so nothing in the background writes meanwhile.
 */
describe('Attacks on a deployment made from the published files', () => {
  const target = {} as Target;

  const rowCounts = async () =>
    Object.fromEntries(
      await Promise.all(
        TABLES.map(async (table) => [
          table,
          (await target.app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n,
        ]),
      ),
    );

  beforeAll(async () => {
    // The deployment logs into Postgres as a role of its own, with a password nobody published.
    const database = await TestDatabase.create();
    await database.query(`CREATE ROLE deployment LOGIN SUPERUSER PASSWORD '${OWN_PASSWORD}'`).catch(async () => {
      await database.query(`ALTER ROLE deployment PASSWORD '${OWN_PASSWORD}'`); // left by an earlier run
    });
    const deploymentUrl = new URL(database.url);
    [deploymentUrl.username, deploymentUrl.password] = ['deployment', OWN_PASSWORD];
    const comparisons = mkdtempSync(path.join(tmpdir(), 'comparisons-'));
    writeFileSync(path.join(comparisons, 'compare-2026-12-01T00-00-00Z.json'), JSON.stringify(COMPARISON));
    target.app = await TestApp.start({
      database,
      // The two sign-ups below use up this address's sign-ups: no TRUST_PROXY, so it stays the address.
      env: {
        ...PRODUCTION_ENV,
        DATABASE_URL: deploymentUrl.toString(),
        COMPARE_RESULTS_DIR: comparisons,
        RATE_LIMIT_SIGNUPS: '2',
      },
    });
    target.client = new CheckoutClient(target.app);
    await target.app.ready();
    target.operatorToken = await eventually(() => {
      const line = logs.matching((l) => /Operator token, made now/.test(String(l.msg))).pop();
      return String(line?.msg).match(/\bop_[A-Za-z0-9_-]{43}\b/)![0];
    });
    const { body } = await target.app.http().post('/users').send(CheckoutClient.userBody()).expect(201);
    target.victim = body;
    target.blocked = (await target.app.http().post('/users').send(CheckoutClient.userBody()).expect(201)).body;
    const asBlocked = () => target.app.http().get('/checkouts').set('authorization', `Bearer ${target.blocked.token}`);
    await asBlocked().expect(200); // the process now remembers this buyer as active
    await target.app
      .http()
      .post(`/admin/users/${target.blocked.id}/block`)
      .set('authorization', `Bearer ${target.operatorToken}`)
      .expect(200);
  });
  afterAll(async () => {
    await target.app?.stop();
    await target.app?.database.drop();
    const maintenance = new URL(TEST_DATABASE_URL);
    maintenance.pathname = '/postgres';
    const postgres = new Client({ connectionString: maintenance.toString() });
    await postgres.connect();
    await postgres.query('DROP ROLE IF EXISTS deployment').finally(() => postgres.end());
  });

  it("when the deployment's own credentials are used, then they work: the attacks below fail for want of a published one", async () => {
    await target.app
      .http()
      .get(`/users/${target.victim.id}`)
      .set('authorization', `Bearer ${target.victim.token}`)
      .expect(200);
    await target.app.http().get('/admin/faults').set('authorization', `Bearer ${target.operatorToken}`).expect(404);
    await target.app.http().get('/admin/sagas').set('authorization', `Bearer ${target.operatorToken}`).expect(200);
    const { body } = await target.app
      .http()
      .get('/comparisons/latest')
      .set('authorization', `Bearer ${target.operatorToken}`)
      .expect(200);
    expect(body.comparison.machine).toEqual(COMPARISON.machine);
  });

  it.each(ATTACKS.map((attack) => [attack.name, attack] as const))(
    'when %s is tried, then it is refused and nothing is written',
    async (_, { expected, attempt }) => {
      const before = await rowCounts();

      const outcome = await attempt(target);

      expect(outcome).toBe(expected);
      expect(await rowCounts()).toEqual(before);
    },
  );
});

/** What a forged job may write, besides the business tables: crashes, dead letters, inbox rows. */
const TRANSPORT_RECORDS = {
  crashes: `SELECT count(*)::int AS n FROM outbox.delivery_attempts WHERE outcome = 'crashed'`,
  deadLetters: 'SELECT count(*)::int AS n FROM outbox.dead_letters',
  inbox: 'SELECT count(*)::int AS n FROM outbox.inbox',
  messages: 'SELECT count(*)::int AS n FROM outbox.messages',
};

interface QueueTarget {
  app: TestApp;
  /** A message whose delivery to billing.void-authorization took effect: the void of a failed checkout. */
  refusal: string;
  /** Jobs pushed into a module's queue, as whoever can write to the Redis could. */
  push: (queue: string, job: object) => Promise<string>;
}

// prettier-ignore
const REDIS_ATTACKS: Array<{ name: string; expected: string; attempt: (target: QueueTarget) => Promise<string> }> = [
  {
    name: 'a job saying that the void of a failed checkout crashed its worker three times',
    expected: 'no crash charged, no dead letter, the checkout FAILED',
    attempt: async ({ app, refusal, push }) => {
      const jobId = await push('billing', { id: refusal, consumer: 'billing.void-authorization', charged: [1, 2, 3], alone: true, stallsCounted: 9, ranAlone: 1 });
      await eventually(async () => expect(await app.get(OutboxQueues).queue('billing').getJob(jobId)).toBeUndefined());
      const [{ crashes, dead, status }] = await app.database.query<{ crashes: number; dead: number; status: string }>(
        `SELECT (SELECT count(*)::int FROM outbox.delivery_attempts WHERE message_id = $1 AND outcome = 'crashed') AS crashes,
                (SELECT count(*)::int FROM outbox.dead_letters WHERE message_id = $1) AS dead,
                (SELECT status FROM checkout.checkouts c JOIN outbox.messages m ON m.aggregate_id = c.id::text WHERE m.id = $1) AS status`,
        [refusal],
      );
      return `${crashes ? `${crashes} crashes charged` : 'no crash charged'}, ${dead ? 'a dead letter' : 'no dead letter'}, the checkout ${status}`;
    },
  },
  {
    name: 'jobs naming 20 consumers that no version has, to grow /metrics',
    expected: '20 refused as unrouted, no series more than for one of them',
    attempt: async ({ app, push }) => {
      // Each series by its name and labels (the value it carries changes, its key does not); not
      // the runtime's own, which grow by themselves (a first major GC adds a histogram of 9 lines).
      const series = async () =>
        new Set(
          (await app.get(MetricsRegistry).metrics())
            .split('\n')
            .filter((line) => line && !line.startsWith('#') && !/^(nodejs|process)_/.test(line))
            .map((line) => line.slice(0, line.lastIndexOf(' '))),
        );
      const refused = () => metricValue(app, 'outbox_refused_jobs_total', { queue: 'billing', reason: 'unrouted' });
      const madeUp = async (count: number) => {
        const before = await refused();
        for (let n = 0; n < count; n += 1) await push('billing', { id: randomUUID(), consumer: `billing.made-up-${randomBytes(4).toString('hex')}` });
        return eventually(async () => {
          expect((await refused()) - before).toBe(count);
          return count;
        });
      };
      // One made-up name makes the series of the `other` consumer; twenty more make none.
      await madeUp(1);
      const before = await series();
      const count = await madeUp(20);
      const grown = [...(await series())].filter((key) => !before.has(key));
      return `${count} refused as unrouted, ${grown.length > 0 ? `new series ${grown.join(', ')}` : 'no series more than for one of them'}`;
    },
  },
  {
    name: 'a job naming a message the outbox does not hold',
    expected: `dropped after ${FOREIGN_LOOKS} looks, refused as foreign`,
    attempt: async ({ app, push }) => {
      const before = await metricValue(app, 'outbox_refused_jobs_total', { queue: 'billing', reason: 'foreign' });
      const jobId = await push('billing', { id: randomUUID(), consumer: 'billing.void-authorization' });
      const queue = app.get(OutboxQueues).queue('billing');
      // Each look waits twice as long as the last: the test does not wait for the delays.
      const looks = await eventually(async () => {
        await queue.promoteJobs();
        expect(await queue.getJob(jobId)).toBeUndefined();
        return (await metricValue(app, 'outbox_refused_jobs_total', { queue: 'billing', reason: 'foreign' })) - before;
      }, { timeoutMs: 30_000, intervalMs: 200 });
      return looks === 1 ? `dropped after ${FOREIGN_LOOKS} looks, refused as foreign` : `refused ${looks} times`;
    },
  },
];

/**
 * Whoever can write to the Redis can push jobs, but not messages, crashes or metrics: each attack
 * below is a job pushed into a queue of a deployment that works its queues, with its refusal, and
 * nothing written to the business tables or the transport's records.
 */
describe('Attacks through the Redis, on a deployment that works its queues', () => {
  const target = {} as QueueTarget;
  const counts = async () => {
    const counted: Record<string, number> = {};
    for (const table of TABLES)
      counted[table] = (await target.app.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
    for (const [name, sql] of Object.entries(TRANSPORT_RECORDS))
      counted[name] = (await target.app.database.query<{ n: number }>(sql))[0].n;
    return counted;
  };

  beforeAll(async () => {
    target.app = await TestApp.start({ env: { ...QUIET_ENV, APP_ROLES: 'api,relay,worker,orchestrator' } });
    const client = new CheckoutClient(target.app);
    // A plan not licensed in the buyer's country: access is refused, and billing voids the authorization.
    const buyer = await client.createUser({ country: 'JP' });
    const checkoutId = await client.start({ userId: buyer.id, planId: 'premium', mode: 'choreography' });
    await client.until(checkoutId, ['FAILED']);
    target.refusal = await eventually(async () => {
      const [row] = await target.app.database.query<{ id: string }>(
        `SELECT m.id FROM outbox.messages m JOIN outbox.inbox i ON i.message_id = m.id AND i.consumer = 'billing.void-authorization'
          WHERE m.aggregate_id = $1 AND m.type = 'content.access-refused.v1'`,
        [checkoutId],
      );
      expect(row).toBeDefined();
      return row.id;
    });
    await quiet(target.app);
    target.push = async (queue, job) => {
      const jobId = `planted-${randomUUID()}`;
      await target.app.get(OutboxQueues).push([{ queue, jobId, name: 'planted', job: job as never }]);
      return jobId;
    };
  }, 60_000);
  afterAll(() => target.app?.stop());

  it.each(REDIS_ATTACKS.map((attack) => [attack.name, attack] as const))(
    'when %s is pushed, then it is refused and nothing is written',
    async (_, { expected, attempt }) => {
      const before = await counts();

      const outcome = await attempt(target);

      expect(outcome).toBe(expected);
      await quiet(target.app);
      expect(await counts()).toEqual(before);
    },
    60_000,
  );
});
