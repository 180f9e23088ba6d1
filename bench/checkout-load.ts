import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { RedisServer } from '../test/support/redis-server';
import { BENCH_DATABASE_URL, openLoop, until } from './bench-env';

/** What a buyer asks for in each scenario of the mix; the buyer's country and status decide the rest. */
const SCENARIOS = {
  happy: { buyer: 'licensed', planId: 'basic', paymentMethod: 'pm_card_ok' },
  'not-licensed': { buyer: 'unlicensed', planId: 'premium', paymentMethod: 'pm_card_ok' },
  'card-declined': { buyer: 'licensed', planId: 'basic', paymentMethod: 'pm_card_declined' },
  'capture-declined': { buyer: 'licensed', planId: 'basic', paymentMethod: 'pm_card_capture_declined' },
  blocked: { buyer: 'blocked', planId: 'basic', paymentMethod: 'pm_card_ok' },
} as const;
type ScenarioName = keyof typeof SCENARIOS;
type BuyerKind = (typeof SCENARIOS)[ScenarioName]['buyer'];

export const FINAL_STATUSES = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];

/** How many of each status: `{ COMPLETED: 18, FAILED: 2 }`. */
export const tally = (statuses: string[]): Record<string, number> =>
  statuses.reduce<Record<string, number>>((acc, status) => ({ ...acc, [status]: (acc[status] ?? 0) + 1 }), {});

/**
 * `happy=8,card-declined=1,not-licensed=1` (a name alone weighs 1): the scenarios, repeated in
 * proportion, in a fixed order, so that any run of a few checkouts already has the mix.
 */
export function parseMix(text: string): ScenarioName[] {
  const weighted = text.split(',').map((part) => {
    const [name, weight = '1'] = part.trim().split('=');
    if (!(name in SCENARIOS))
      throw new Error(`Unknown scenario "${name}" in BENCH_CHECKOUT_MIX; known: ${Object.keys(SCENARIOS).join(', ')}`);
    if (!/^\d+$/.test(weight) || Number(weight) < 1) throw new Error(`Weight of "${name}" must be a positive integer`);
    return { name: name as ScenarioName, weight: Number(weight) };
  });
  const order: ScenarioName[] = [];
  const most = Math.max(...weighted.map((w) => w.weight));
  for (let round = 0; round < most; round += 1)
    for (const { name, weight } of weighted) if (round < weight) order.push(name);
  return order;
}

interface Buyer {
  id: string;
  token: string;
}

/** One checkout offered: when it was sent, what the API answered and the id it gave. */
export interface Offered {
  sentAt: number;
  status?: number;
  id?: string;
}

/** A finished checkout as GET /checkouts lists it: its server-side duration, and how it ended. */
export interface Finished {
  id: string;
  status: string;
  durationMs: number;
  /** When it finished, by the server's clock (epoch ms). */
  finishedAt: number;
}

/**
 * Buyers who start checkouts over REST, as a client would: each with their own token, each
 * request with an Idempotency-Key, spread over the app processes as a load balancer would.
 */
export class CheckoutLoad {
  private readonly buyers = new Map<BuyerKind, Buyer[]>();
  private next = 0;

  constructor(
    private readonly urls: string[],
    private readonly adminToken: string,
    private readonly mix: ScenarioName[],
  ) {}

  /** Signs up the buyers the mix needs: ten of each kind. */
  async signUp(): Promise<void> {
    const kinds = new Set(this.mix.map((name) => SCENARIOS[name].buyer));
    for (const kind of kinds) {
      const buyers: Buyer[] = [];
      for (let i = 0; i < 10; i += 1) {
        const country = kind === 'unlicensed' ? 'JP' : 'PT';
        const user = await this.call<{ id: string; token: string }>('POST', '/users', 201, this.adminToken, {
          email: `bench-${randomUUID()}@example.com`,
          name: 'A Bench Buyer',
          country,
        });
        if (kind === 'blocked') await this.call('POST', `/admin/users/${user.id}/block`, 200, this.adminToken);
        buyers.push({ id: user.id, token: user.token });
      }
      this.buyers.set(kind, buyers);
    }
  }

  /**
   * Offers `rate` checkouts a second for `seconds`, open loop: each is sent when its time comes,
   * whether or not the earlier ones were answered, into `offered` (which the caller may watch).
   * Stops early when `stop()` says so. Resolves once every request sent has been answered.
   */
  async offer(
    mode: string,
    rate: number,
    seconds: number,
    offered: Offered[] = [],
    stop: () => boolean = () => false,
  ): Promise<Offered[]> {
    const answers: Array<Promise<void>> = [];
    await openLoop(rate, Math.max(1, Math.round(rate * seconds)), () => answers.push(this.send(mode, offered)), stop);
    await Promise.all(answers);
    return offered;
  }

  private async send(mode: string, offered: Offered[]): Promise<void> {
    const scenario = SCENARIOS[this.mix[this.next % this.mix.length]];
    const buyers = this.buyers.get(scenario.buyer)!;
    const buyer = buyers[Math.floor(this.next / this.mix.length) % buyers.length];
    const url = this.urls[this.next % this.urls.length];
    this.next += 1;
    const entry: Offered = { sentAt: Date.now() };
    offered.push(entry);
    try {
      const response = await fetch(`${url}/checkouts`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${buyer.token}`,
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({ planId: scenario.planId, paymentMethod: scenario.paymentMethod, mode }),
        signal: AbortSignal.timeout(60_000),
      });
      entry.status = response.status;
      const body = (await response.json()) as { id?: string };
      if (response.status === 202) entry.id = body.id;
    } catch {
      entry.status = 0; // no answer: counted as an error, like any answer but 202
    }
  }

  /**
   * The checkouts of `ids` as the operator's GET /checkouts lists them, newest first, a hundred a
   * page, until all are found: duration is completedAt - createdAt (updatedAt for an outcome
   * without completedAt), both stamped by the server.
   */
  async finished(mode: string, ids: string[]): Promise<Finished[]> {
    const wanted = new Set(ids);
    const found: Finished[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        items: Array<{ id: string; status: string; createdAt: string; updatedAt: string; completedAt: string | null }>;
        nextCursor: string | null;
      } = await this.call(
        'GET',
        `/checkouts?mode=${mode}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        200,
        this.adminToken,
      );
      for (const item of page.items) {
        if (!wanted.delete(item.id)) continue;
        const end = item.completedAt ?? item.updatedAt;
        found.push({
          id: item.id,
          status: item.status,
          durationMs: Date.parse(end) - Date.parse(item.createdAt),
          finishedAt: Date.parse(end),
        });
      }
      cursor = page.nextCursor;
    } while (cursor && wanted.size > 0);
    return found;
  }

  private async call<T>(method: string, path: string, expected: number, token: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.urls[0]}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }
}

/** The ids of the checkouts the API accepted. */
export const idsOf = (offered: Offered[]): string[] => offered.flatMap((o) => (o.id ? [o.id] : []));

/** Calls of each command Redis ran, from INFO commandstats, less the INFO calls that read them. */
export async function redisCommandStats(redis: RedisServer): Promise<Record<string, number>> {
  const info = await redis.command((client) => client.info('commandstats'));
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (match[1] !== 'info') calls[match[1]] = Number(match[2]);
  return calls;
}

/** The bench's own view of the database: how many checkouts finished, and the commit counter. */
export class Monitor {
  /** Statements this client sent: each one a transaction that pg_stat_database counts too. */
  queries = 0;

  private constructor(private readonly client: Client) {}

  static async connect(): Promise<Monitor> {
    const client = new Client({ connectionString: BENCH_DATABASE_URL });
    await client.connect();
    return new Monitor(client);
  }

  async finishedCount(ids: string[]): Promise<number> {
    this.queries += 1;
    const { rows } = await this.client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM checkout.checkouts WHERE id = ANY($1::uuid[]) AND status = ANY($2)`,
      [ids, FINAL_STATUSES],
    );
    return rows[0].n;
  }

  async committed(): Promise<number> {
    this.queries += 1;
    const { rows } = await this.client.query<{ n: string }>(
      `SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Number(rows[0].n);
  }

  async untilFinished(ids: string[], what: string, timeoutMs = 120_000): Promise<void> {
    try {
      await until(async () => (await this.finishedCount(ids)) === ids.length, timeoutMs, 100);
    } catch {
      const left = ids.length - (await this.finishedCount(ids));
      throw new Error(`${what}: ${left} of ${ids.length} checkouts still PENDING after ${timeoutMs / 1_000} s`);
    }
  }

  end(): Promise<void> {
    return this.client.end();
  }
}
