import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { Pool } from 'pg';
import { eventually } from './eventually';

export interface QuietCheck {
  /** The apps' database. */
  pool: Pool;
  redisUrl: string;
  queuePrefix: string;
  /**
   * How long it must stay quiet: at least the redelivery age plus one sweep, so that a message the
   * sweep would push again has had its chance to show up.
   */
  stableForMs: number;
  timeoutMs?: number;
}

/** What is still in flight: undelivered outbox messages and jobs in the queues, by where they wait. */
export async function inFlight({ pool, redisUrl, queuePrefix }: QuietCheck): Promise<Record<string, number>> {
  const {
    rows: [{ undelivered }],
  } = await pool.query<{ undelivered: number }>(
    `SELECT count(*)::int AS undelivered FROM outbox.messages WHERE delivered_at IS NULL`,
  );
  const counts: Record<string, number> = { undelivered };
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const metas = await redis.keys(`${queuePrefix}:*:meta`);
    for (const meta of metas) {
      const name = meta.slice(queuePrefix.length + 1, -':meta'.length);
      const queue = new Queue(name, { connection: redis, prefix: queuePrefix });
      const jobs = await queue
        .getJobCounts('active', 'wait', 'delayed', 'prioritized', 'waiting-children')
        .finally(() => queue.close());
      for (const [state, n] of Object.entries(jobs)) if (n > 0) counts[`${name}.${state}`] = n;
    }
  } finally {
    redis.disconnect();
  }
  return counts;
}

/**
 * Waits until nothing is in flight (every outbox message delivered, every queue empty, no
 * delayed retry) and it stays so for `stableForMs`: assertions about "exactly once" are made
 * then, not at the first moment a count looks right.
 */
export async function waitUntilQuiet(check: QuietCheck): Promise<void> {
  let quietSince: number | undefined;
  await eventually(
    async () => {
      const busy = Object.entries(await inFlight(check)).filter(([, n]) => n > 0);
      if (busy.length > 0) {
        quietSince = undefined;
        throw new Error(`still in flight: ${JSON.stringify(Object.fromEntries(busy))}`);
      }
      quietSince ??= Date.now();
      if (Date.now() - quietSince < check.stableForMs) throw new Error('quiet, not yet for long enough');
    },
    { timeoutMs: check.timeoutMs ?? 60_000, intervalMs: 250, what: 'the system to be quiet' },
  );
}
