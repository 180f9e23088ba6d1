import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import type { AppProcess } from './app-process';
import { GATEWAY_ADMIN_TOKEN } from './card-gateway-service';
import { CHAOS_SETTINGS, type ChaosSummary, CheckoutLoad, settleAndVerify } from './chaos';
import { eventually } from './eventually';
import { type Cut, Hosts, POSTGRES_PORT, REDIS_PORT } from './hosts';
import { ProcessClient } from './process-client';
import type { StartedCheckout } from './scenarios';
import { ADMIN_TOKEN } from './test-app';

/**
 * The faults of a run over hosts: five kinds of cut and a gateway slowed (each healed after a
 * while), and a kill.
 */
export const HOSTS_FAULTS = [
  'worker host cut from Redis',
  'relay host cut from Postgres between push and commit',
  'orchestrator host cut from Postgres and Redis',
  'api host cut from Postgres',
  'gateway host cut from the app hosts',
  'gateway host slowed',
  'kill',
] as const;
export type HostsFault = (typeof HOSTS_FAULTS)[number];

/** How long a worker holds a job: every cut of a worker from Redis lasts longer than this. */
export const JOB_LOCK_MS = 2_000;
/**
 * How long the apps wait for one answer of the card gateway: well under the saga's step timeout
 * (CHAOS_SETTINGS), since the call holds its delivery's transaction open.
 */
const GATEWAY_TIMEOUT_MS = 1_500;
/** A slowed gateway answers this late, past the apps' timeout: each call gives up after its effect. */
const GATEWAY_LATE_MS = GATEWAY_TIMEOUT_MS + 500;

export interface HostsChaosOptions {
  /**
   * `each-once`: each cut once, in turn, each waiting for the system to recover from the one
   * before (the test); `random`: random cuts of random hosts, and kills, for `durationMs`.
   */
  script: 'each-once' | 'random';
  durationMs?: number;
  checkoutsPerSecond: number;
  /** How long a cut lasts (random: between half and one and a half times this). */
  cutMs: number;
  /** random: the pause between one heal and the next fault. */
  faultEveryMs?: number;
  settleTimeoutMs?: number;
  /** Once quiet, a second capture of a completed checkout written into the gateway's own database: the run must report it. */
  plant?: 'double-capture';
  log?: (line: string) => void;
}

/** After each heal, in ms from it (undefined: not within 90 s). */
export interface Recovery {
  fault: HostsFault;
  host: string;
  cutMs: number;
  /**
   * Until the cut host's process answered /health with 200 (Postgres, Redis and its queues
   * reached); the gateway's, its listing, from the driver.
   */
  healthyMs: number | undefined;
  /** Until the api accepted a checkout (202), a request held by the cut or a new one. */
  acceptingMs: number | undefined;
  /** Until every checkout accepted before the heal had ended: the backlog the cut held. */
  recoveredMs: number | undefined;
}

export interface HostsChaosSummary extends ChaosSummary {
  recoveries: Recovery[];
  /** By consumer: the copies of a delivery the inbox found already handled (outbox.delivery_attempts, 'duplicate'). */
  turnedAway: Record<string, number>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BACK_HOSTS = ['a', 'b'] as const;
const APP_HOSTS = ['api', ...BACK_HOSTS];
/**
 * The back hosts run `api` too, for the operator's calls alone (the fault rules: a process without
 * the role answers only /health and /metrics); the buyers' load goes to the api host.
 */
const ROLES: Record<string, string> = {
  api: 'api',
  a: 'relay,worker,orchestrator,api',
  b: 'relay,worker,orchestrator,api',
};

/**
 * The app over hosts (test/support/hosts.ts): Postgres and Redis on host `data`; the `api` role on
 * host `api`; `relay`, `worker` and `orchestrator` on hosts `a` and `b`, one process each (with the
 * api role for the operator's fault rules, not for buyers); a real SMTP server on host `mail`; the
 * card gateway service on host `gateway` (`npm run card-gateway`'s process, over a database of its
 * own on the data host; the apps reach it by CARD_GATEWAY_URL), and the fiscal authority beside it
 * (`npm run fiscal-authority`'s, FISCAL_AUTHORITY_URL); this process (the driver) sends the load to
 * the api host.
 * Under checkouts of every scenario in both modes, links are cut (iptables DROP: packets vanish,
 * connections hang) and healed: a worker host from Redis for longer than the job lock (its jobs go
 * to the other host's worker while it may still commit), a relay host from Postgres while it holds
 * a batch pushed and not committed (the `hold` fault at `relay.after-push`, then the cut, then the
 * hold lifted: its COMMIT goes out into the cut), an orchestrator host from both, the api host
 * from Postgres, the gateway host from the app hosts (a call in flight times out, its effect
 * maybe applied); the gateway is also slowed, every answer sent after the apps' timeout (its lab's
 * `late` fault: tc netem is not in every kernel); randomly, also kills. After each heal it measures
 * how long until every checkout accepted before the heal has ended. Then the same checks as
 * `runChaos`: nothing lost, doubled or held, the money counted at the gateway service's listing,
 * the invoices at the authority's and the emails at the SMTP server.
 */
export async function runHostsChaos(options: HostsChaosOptions): Promise<HostsChaosSummary> {
  const log = options.log ?? (() => undefined);
  const startedAt = Date.now();
  const rig = await Hosts.create(['data', 'api', ...BACK_HOSTS, 'mail', 'gateway']);
  const data = rig.host('data');
  const apps: Record<string, AppProcess | undefined> = {};
  const restarts: Array<Promise<void>> = [];
  let smtp: Awaited<ReturnType<Hosts['startSmtpSink']>> | undefined;
  let gateway: AppProcess | undefined;
  let authority: AppProcess | undefined;
  let pool: Pool | undefined;
  try {
    const [postgresUrl, redisUrl] = await Promise.all([rig.startPostgres(data), rig.startRedis(data)]);
    smtp = await rig.startSmtpSink(rig.host('mail'));
    const gatewayDatabaseUrl = `${postgresUrl}/card_gateway`;
    // Both participants on the one host, cut and healed together: the gateway, and the authority
    // the checkouts invoice at.
    [gateway, authority] = await Promise.all([
      rig.startParticipant('card-gateway', rig.host('gateway'), gatewayDatabaseUrl, GATEWAY_ADMIN_TOKEN),
      rig.startParticipant(
        'fiscal-authority',
        rig.host('gateway'),
        `${postgresUrl}/fiscal_authority`,
        GATEWAY_ADMIN_TOKEN,
      ),
    ]);
    const gatewayUrl = gateway.url;
    const admin = new Client({ connectionString: `${postgresUrl}/postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE checkout_hosts');
    await admin.end();
    const databaseUrl = `${postgresUrl}/checkout_hosts`;
    pool = new Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => undefined);
    const queuePrefix = `hosts-${randomBytes(3).toString('hex')}`;
    const env = {
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: '6',
      DATABASE_RETRY_MS: '500',
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      SMTP_URL: smtp.url,
      CARD_GATEWAY_URL: gatewayUrl,
      FISCAL_AUTHORITY_URL: authority.url,
      FISCAL_AUTHORITY_TIMEOUT_MS: String(GATEWAY_TIMEOUT_MS),
      CARD_GATEWAY_TIMEOUT_MS: String(GATEWAY_TIMEOUT_MS),
      ADMIN_TOKEN,
      FAULT_INJECTION: 'true',
      ...CHAOS_SETTINGS,
      OUTBOX_JOB_LOCK_MS: String(JOB_LOCK_MS),
    };
    const boot = async (name: string) => {
      const app = await rig.startApp(rig.host(name), { ...env, APP_ROLES: ROLES[name] });
      await eventually(async () => (await app.get('/health')).status === 200, {
        timeoutMs: 120_000,
        intervalMs: 250,
        what: `the app on host ${name} to be healthy`,
      }).catch((error: Error) => {
        void app.stop();
        throw new Error(`${error.message}\n${app.tail()}`, { cause: error });
      });
      apps[name] = app;
    };
    await boot('a'); // alone first: it migrates the empty database
    await Promise.all([boot('api'), boot('b')]);
    log(`hosts up after ${Math.round((Date.now() - startedAt) / 1000)} s: ${describeRig(rig)}`);

    const api = () => (apps.api ? new ProcessClient(apps.api.url) : undefined);
    const load = new CheckoutLoad(api, options.checkoutsPerSecond);
    const faults = Object.fromEntries(HOSTS_FAULTS.map((fault) => [fault, 0])) as Record<HostsFault, number>;
    const recoveries: Recovery[] = [];
    const measuring: Array<Promise<void>> = [];
    const database = pool;

    /** From a heal: until the cut host answers /health, the api accepts a checkout, the backlog has ended. */
    const recovery = async (fault: HostsFault, host: string, cutMs: number, healed: Healed) => {
      const within = <T>(check: () => Promise<T> | T, what: string) =>
        eventually(check, { timeoutMs: 90_000, intervalMs: 100, what }).catch(() => undefined);
      const since = () => Date.now() - healed.at;
      const ids = load.checkouts.map((c) => c.id);
      const [healthyMs, acceptingMs, recoveredMs] = await Promise.all([
        within(async () => {
          const app = host === 'gateway' ? gateway : apps[host];
          const probe = host === 'gateway' ? '/v1/references/none/operations' : '/health';
          return app !== undefined && (await app.get(probe)).status === 200 && since();
        }, `the process on ${host} to be healthy`),
        within(() => load.checkouts.length > healed.accepted && since(), 'a checkout to be accepted'),
        within(async () => {
          const { rows } = await database.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM checkout.checkouts WHERE id = ANY($1) AND status = 'PENDING'`,
            [ids],
          );
          return rows[0].n === 0 && since();
        }, 'the checkouts accepted before the heal to end'),
      ]);
      const recovered: Recovery = { fault, host, cutMs, healthyMs, acceptingMs, recoveredMs };
      recoveries.push(recovered);
      log(`healed: ${formatRecovery(recovered)}`);
    };

    /**
     * Cuts, waits, heals; resolves at the heal with what recovery() needs. A worker host is cut
     * while its worker holds a delivery it handled and has not committed (the `hold` fault before
     * the inbox commit), and let go once its job lock has expired and the other host's worker may
     * have taken the job: it commits after its lock expired. A relay host is cut while its relay
     * holds a batch pushed and not committed, let go at once: its COMMIT goes out into the cut. The
     * gateway host is cut from every app host; it is slowed by its lab (each answer late), healed by
     * clearing it.
     */
    const cutAndHeal = async (fault: Exclude<HostsFault, 'kill'>, hostName: string, cutMs: number) => {
      const host = rig.host(hostName);
      const app = apps[hostName];
      faults[fault] += 1;
      let cut: Cut | undefined;
      let releaseAfterMs: number | undefined;
      if (fault === 'worker host cut from Redis') {
        const held = app && (await hold(app, `consumer:${HELD_CONSUMER}:before-commit`, log));
        cut = await rig.cut(host, data, REDIS_PORT);
        if (held) releaseAfterMs = Math.min(cutMs, Math.max(cutMs - 1_000, 2.5 * JOB_LOCK_MS));
      } else if (fault === 'relay host cut from Postgres between push and commit') {
        const held = app && (await hold(app, 'relay.after-push', log));
        cut = await rig.cut(host, data, POSTGRES_PORT);
        if (held) releaseAfterMs = 0;
      } else if (fault === 'api host cut from Postgres') cut = await rig.cut(host, data, POSTGRES_PORT);
      else if (fault === 'gateway host cut from the app hosts')
        cut = await rig.cut(
          host,
          APP_HOSTS.map((name) => rig.host(name)),
        );
      else if (fault === 'gateway host slowed')
        await gatewayLab(gatewayUrl, 'POST', { fault: 'late', delayMs: GATEWAY_LATE_MS, times: 10_000 });
      else cut = await rig.cut(host, data);
      log(`cut: ${fault} (host ${hostName}) for ${(cutMs / 1000).toFixed(1)} s`);
      const cutAt = Date.now();
      if (releaseAfterMs !== undefined) {
        await pause(releaseAfterMs);
        await release(app!);
      }
      await pause(Math.max(0, cutMs - (Date.now() - cutAt)));
      if (cut) await rig.heal(cut);
      else await gatewayLab(gatewayUrl, 'DELETE');
      return { at: Date.now(), accepted: load.checkouts.length };
    };

    load.start();
    if (options.script === 'each-once') {
      const plan: Array<[Exclude<HostsFault, 'kill'>, string]> = [
        ['worker host cut from Redis', 'a'],
        ['relay host cut from Postgres between push and commit', 'b'],
        ['orchestrator host cut from Postgres and Redis', 'a'],
        ['api host cut from Postgres', 'api'],
        ['gateway host cut from the app hosts', 'gateway'],
      ];
      for (const [fault, host] of plan) {
        await pause(2_000); // checkouts under way in every step before the cut
        await recovery(fault, host, options.cutMs, await cutAndHeal(fault, host, options.cutMs));
      }
    } else {
      const until = Date.now() + (options.durationMs ?? 120_000);
      const deck: HostsFault[] = [];
      while (Date.now() < until) {
        await pause(options.faultEveryMs ?? 3_000);
        // Every kind in each round, in a random order.
        if (deck.length === 0) deck.push(...[...HOSTS_FAULTS].sort(() => Math.random() - 0.5));
        const fault = deck.pop()!;
        const back = BACK_HOSTS[Math.floor(Math.random() * BACK_HOSTS.length)];
        if (fault === 'kill') {
          const app = apps[back];
          if (!app) continue; // being restarted
          faults.kill += 1;
          log(`kill: the process on host ${back}`);
          apps[back] = undefined;
          await app.stop();
          restarts.push(boot(back));
          continue;
        }
        const host = fault === 'api host cut from Postgres' ? 'api' : fault.startsWith('gateway') ? 'gateway' : back;
        if (fault === 'relay host cut from Postgres between push and commit' && !apps[host]) continue;
        // A worker's cut from Redis outlasts its job lock (and the hold's release after it).
        const least = fault === 'worker host cut from Redis' ? 3 * JOB_LOCK_MS : 0;
        const cutMs = Math.max(least, Math.round(options.cutMs * (0.5 + Math.random())));
        measuring.push(recovery(fault, host, cutMs, await cutAndHeal(fault, host, cutMs)));
      }
    }
    await Promise.all(restarts);
    // The load goes on until the last heal is measured: stopped before, its "a checkout accepted" never came.
    await Promise.all(measuring);
    await load.stop();
    log(`faults stopped; ${load.checkouts.length} checkouts accepted; waiting for them to end`);

    const summary = await settleAndVerify({
      checkouts: load.checkouts,
      pool,
      smtp,
      client: api,
      faults,
      // What is not promised (docs/guarantees.md): a kill between the SMTP server's answer and the
      // record of the hand-over, or a worker cut from both at that moment (its job goes to another
      // worker while its record waits for Postgres), may send an email a second time; at most one each.
      resentAllowed: faults.kill + faults['orchestrator host cut from Postgres and Redis'],
      redisUrl,
      queuePrefix,
      settleTimeoutMs: options.settleTimeoutMs,
      plant: options.plant && (() => plantDoubleCapture(gatewayDatabaseUrl, load.checkouts)),
      authorityUrl: authority.url,
      startedAt,
      log,
    });
    const { rows: duplicates } = await pool.query<{ consumer: string; n: number }>(
      `SELECT consumer, count(*)::int AS n FROM outbox.delivery_attempts WHERE outcome = 'duplicate' GROUP BY consumer`,
    );
    return { ...summary, recoveries, turnedAway: Object.fromEntries(duplicates.map((d) => [d.consumer, d.n])) };
  } finally {
    await rig.healAll();
    await Promise.allSettled(restarts);
    await Promise.all(Object.values(apps).flatMap((app) => (app ? [app.stop()] : [])));
    await pool?.end();
    smtp?.stop();
    await gateway?.stop();
    await authority?.stop();
    await rig.destroy();
  }
}

/** The consumer whose delivery a worker holds, uncommitted, as its host is cut from Redis: every choreographed checkout's first. */
export const HELD_CONSUMER = 'identity.verify-user';

/**
 * Sets a `hold` rule at `point` on the process, and waits until the process is held there (true),
 * or 20 s (false: the rule is cleared, and the cut happens anyway).
 */
async function hold(app: AppProcess, point: string, log: (line: string) => void): Promise<boolean> {
  const admin = new ProcessClient(app.url);
  await admin.setFaults([{ point, action: 'hold', times: 1 }]);
  const held = await eventually(
    async () => {
      const { rules } = await admin.call<{ rules: Array<{ hits: number }> }>('GET', '/admin/faults', 200);
      return rules[0]?.hits === 1;
    },
    { timeoutMs: 20_000, intervalMs: 20, what: `a hold at ${point}` },
  ).catch(() => false);
  if (!held) {
    log(`nothing reached ${point} within 20 s: cut without a hold`);
    await release(app);
  }
  return held;
}

/** Lifts every rule on the process: what it held goes on. */
async function release(app: AppProcess): Promise<void> {
  await new ProcessClient(app.url).call('DELETE', '/admin/faults', 200);
}

function describeRig(rig: Hosts): string {
  return ['data', 'api', ...BACK_HOSTS]
    .map((name) => `${name} ${rig.host(name).address} (${name === 'data' ? 'Postgres, Redis' : ROLES[name]})`)
    .concat(
      `mail ${rig.host('mail').address} (SMTP server)`,
      `gateway ${rig.host('gateway').address} (card gateway service)`,
      `driver ${rig.driver.address} (load)`,
    )
    .join('; ');
}

/** Sets (`POST`) or clears (`DELETE`) the card gateway's faults over its admin API. */
async function gatewayLab(gatewayUrl: string, method: 'POST' | 'DELETE', rule?: object): Promise<void> {
  const response = await fetch(`${gatewayUrl}/admin/faults`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_ADMIN_TOKEN}` },
    body: rule && JSON.stringify(rule),
  });
  if (!response.ok) throw new Error(`the card gateway's lab answered ${method} with ${response.status}`);
}

/** A second approved capture of a completed checkout, written straight into the gateway's own database. */
async function plantDoubleCapture(gatewayDatabaseUrl: string, checkouts: StartedCheckout[]): Promise<void> {
  const client = new Client({ connectionString: gatewayDatabaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `INSERT INTO card_gateway.operations
         (operation, idempotency_key, response, approved, reference, authorization_id, payment_method)
       SELECT operation, 'planted-' || idempotency_key, response, approved, reference, authorization_id, payment_method
         FROM card_gateway.operations
        WHERE operation = 'capture' AND approved AND reference = ANY($1) LIMIT 1`,
      [checkouts.filter((c) => c.expected === 'COMPLETED').map((c) => c.id)],
    );
    if (rowCount !== 1) throw new Error('no capture at the gateway to plant a second of');
  } finally {
    await client.end();
  }
}

/** When a cut was healed, and how many checkouts the api had accepted by then. */
interface Healed {
  at: number;
  accepted: number;
}

const seconds = (ms: number | undefined) => (ms === undefined ? 'not within 90 s' : `${(ms / 1000).toFixed(1)} s`);

export function formatRecovery(r: Recovery): string {
  return (
    `${r.fault} (host ${r.host}, cut ${seconds(r.cutMs)}): healthy again ${seconds(r.healthyMs)}, ` +
    `a checkout accepted ${seconds(r.acceptingMs)}, the checkouts accepted before the heal ended ` +
    `${seconds(r.recoveredMs)} after the heal`
  );
}

/** The recoveries, one line each, for a report. */
export function formatRecoveries(recoveries: Recovery[]): string {
  return recoveries.map((r) => `  ${formatRecovery(r)}`).join('\n');
}
