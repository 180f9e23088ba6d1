import { Queue } from 'bullmq';
import Redis, { Cluster } from 'ioredis';
import { queuePrefixOf } from '../../src/infra/outbox/queue-prefix-of';
import { eventually } from './eventually';
import type { TestDatabase } from './test-database';
import { TEST_REDIS_URL } from './test-env';

/**
 * What tests that wait for quiet give the app, so that quiet comes within a second or two: the
 * redelivery sweep runs every 200 ms and judges a message after 500 ms.
 */
export const QUIET_ENV = { OUTBOX_REDELIVER_AFTER_MS: '500', OUTBOX_SWEEP_INTERVAL_MS: '200' } as const;

/** Where a system keeps its work: its database and its Redis key prefix (a TestApp has both). */
export interface QuietTarget {
  database: Pick<TestDatabase, 'query'>;
  queuePrefix: string;
}

export interface QuietOptions {
  timeoutMs?: number;
  /** Redis, when the system's is not the tests' shared one (a private redis-server). */
  redisUrl?: string;
  /** A Redis Cluster's or Sentinel's client, when the system uses one (wins over redisUrl). */
  connect?: () => Redis | Cluster;
  /**
   * How long it must stay quiet besides being seen so twice: at least the redelivery age plus a
   * sweep, where the apps keep their default ages, so that a job the sweep would push again shows up.
   */
  stableForMs?: number;
}

const BUSY_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/**
 * Waits until the system is quiet, so that a count taken afterwards is final: nothing left in the
 * outbox (every message published, and marked delivered, which only the redelivery sweep does,
 * after OUTBOX_REDELIVER_AFTER_MS, once every consumer has it in its inbox or dead letters), and
 * every BullMQ queue under the prefix empty (no job waiting, running or delayed for a retry),
 * seen so twice in a row. "Exactly once" is asserted after this, not at the first moment a
 * count reaches one. Give the app QUIET_ENV, or it takes the default 30 s redelivery age.
 */
export async function quiet(
  target: QuietTarget,
  { timeoutMs = 30_000, redisUrl, connect, stableForMs = 0 }: QuietOptions = {},
): Promise<void> {
  let quietSince: number | undefined;
  let quietBefore = false;
  await withQueues(connect ?? (() => plainRedis(redisUrl)), async (redis, queues) => {
    await eventually(
      async () => {
        const busy = await busyness(target, redis, queues);
        const isQuiet = busy.length === 0;
        quietSince = isQuiet ? (quietSince ?? Date.now()) : undefined;
        const confirmed = isQuiet && quietBefore && Date.now() - quietSince! >= stableForMs;
        quietBefore = isQuiet;
        if (!confirmed) throw new Error(isQuiet ? 'quiet, checking again' : `still busy: ${busy.join('; ')}`);
      },
      { timeoutMs, intervalMs: 100, what: 'the system to be quiet' },
    );
  });
}

/** What is still going on, once: empty when nothing is (for a report when quiet never came). */
export function stillBusy(
  target: QuietTarget,
  { redisUrl, connect }: Pick<QuietOptions, 'redisUrl' | 'connect'> = {},
): Promise<string[]> {
  return withQueues(connect ?? (() => plainRedis(redisUrl)), (redis, queues) => busyness(target, redis, queues));
}

const plainRedis = (redisUrl: string | undefined) =>
  new Redis(redisUrl ?? TEST_REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true });

async function withQueues<T>(
  connect: () => Redis | Cluster,
  work: (redis: Redis | Cluster, queues: Map<string, Queue>) => Promise<T>,
): Promise<T> {
  const redis = connect();
  redis.on('error', () => undefined); // a Redis being restarted by the test: the next check tries again
  const queues = new Map<string, Queue>();
  try {
    return await work(redis, queues);
  } finally {
    await Promise.all([...queues.values()].map((queue) => queue.close().catch(() => undefined)));
    redis.disconnect();
  }
}

/** What is still going on: empty when nothing is. */
async function busyness(target: QuietTarget, redis: Redis | Cluster, queues: Map<string, Queue>): Promise<string[]> {
  const [outbox] = await target.database.query<{ unpublished: number; undelivered: number }>(
    `SELECT count(*) FILTER (WHERE published_at IS NULL)::int AS unpublished,
            count(*) FILTER (WHERE delivered_at IS NULL)::int AS undelivered
       FROM outbox.messages`,
  );
  const busy: string[] = [];
  if (outbox.unpublished > 0) busy.push(`${outbox.unpublished} message(s) unpublished`);
  if (outbox.undelivered > 0) busy.push(`${outbox.undelivered} message(s) not yet judged delivered`);

  for (const name of await queueNames(redis, target.queuePrefix)) {
    if (!queues.has(name)) {
      queues.set(name, new Queue(name, { connection: redis, prefix: queuePrefixOf(target.queuePrefix, name) }));
    }
    const queue = queues.get(name)!;
    const counts = await queue.getJobCounts(...BUSY_STATES);
    const pending = Object.entries(counts).filter(([, n]) => n > 0);
    if (pending.length === 0) continue;
    // Which jobs, so that a test that never gets quiet says what kept it busy.
    const jobs = (await queue.getJobs([...BUSY_STATES], 0, 2)).map(
      (job) => `${job.id} (${job.name}, attempts ${job.attemptsMade}/${job.attemptsStarted})`,
    );
    busy.push(`queue ${name}: ${pending.map(([state, n]) => `${n} ${state}`).join(', ')}: ${jobs.join(', ')}`);
  }
  return busy;
}

/**
 * The queues that exist under a deployment's prefix: each BullMQ queue keeps a `{<prefix>:<name>}:<name>:meta`
 * hash. On a Redis Cluster, on each of its masters.
 */
async function queueNames(redis: Redis | Cluster, prefix: string): Promise<string[]> {
  const names = new Set<string>();
  const head = `{${prefix}:`;
  for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${head}*}:*:meta`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) names.add(key.slice(head.length, key.indexOf('}')));
    } while (cursor !== '0');
  }
  return [...names];
}
