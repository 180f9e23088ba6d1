import { RedisServer } from '../test/support/redis-server';
import { machine, recreateBenchDatabase, statsSettle } from './bench-env';
import { CheckoutLoad, idsOf, Monitor, parseMix, redisCommandStats } from './checkout-load';
import { cpuTimes } from './machine-cpu';
import { ADMIN_TOKEN, ProbedApp } from './probed-app';
import { phase } from './progress';

const MODES = (process.env.BENCH_CHECKOUT_MODES ?? 'choreography,orchestration').split(',').filter(Boolean);
const BURST = Number(process.env.BENCH_BURST_CHECKOUTS ?? 200);
const IDLE_MS = 3_000;

interface BurstCost {
  checkouts: number;
  seconds: number;
  /** Calls Redis ran (INFO commandstats, the commands inside BullMQ's scripts included) a checkout. */
  redisCallsPerCheckout: number;
  redisCpuMsPerCheckout: number;
  /** The five commands Redis ran most, calls a checkout. */
  top: Record<string, number>;
}

async function snapshot(redis: RedisServer) {
  return { at: Date.now(), calls: await redisCommandStats(redis), cpu: (await cpuTimes(redis)).redis };
}

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** Per command, calls between two snapshots less what the idle app calls in as long. */
function between(from: Snapshot, to: Snapshot, idlePerMs: Record<string, number> = {}): Record<string, number> {
  const ms = to.at - from.at;
  return Object.fromEntries(
    Object.keys(to.calls).map((name) => [
      name,
      Math.max(0, to.calls[name] - (from.calls[name] ?? 0) - (idlePerMs[name] ?? 0) * ms),
    ]),
  );
}

async function burstOf(mode: string, redis: RedisServer): Promise<BurstCost> {
  phase(`${mode}: recreating the bench database, starting the app`);
  await recreateBenchDatabase();
  await redis.flushAll();
  // Every delivery through the queues: under the local default only those above its bound go there.
  const app = await ProbedApp.start({ REDIS_URL: redis.url, OUTBOX_DELIVERY: 'queue' });
  const monitor = await Monitor.connect();
  try {
    const load = new CheckoutLoad([app.url], ADMIN_TOKEN, parseMix('happy'));
    await load.signUp();
    await monitor.untilFinished(idsOf(await load.offer(mode, 10, 1)), `${mode} warm-up`, 60_000);
    await statsSettle();

    phase(`${mode}: the idle app, ${IDLE_MS / 1_000} s`);
    const idleFrom = await snapshot(redis);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleTo = await snapshot(redis);
    const idleMs = idleTo.at - idleFrom.at;
    const idlePerMs = Object.fromEntries(Object.entries(between(idleFrom, idleTo)).map(([k, v]) => [k, v / idleMs]));

    phase(`${mode}: a burst of ${BURST} checkouts`);
    const from = await snapshot(redis);
    const ids = idsOf(await load.offer(mode, BURST, 1));
    await monitor.untilFinished(ids, `${mode} burst`, 300_000);
    // What follows a checkout's last step (the emails' deliveries, the sweep's look).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const to = await snapshot(redis);
    const calls = between(from, to, idlePerMs);
    const total = Object.values(calls).reduce((sum, n) => sum + n, 0);
    const top = Object.fromEntries(
      Object.entries(calls)
        .sort(([, a], [, b]) => b - a)
        .slice(0, 5)
        .map(([name, n]) => [name, Math.round((n / ids.length) * 10) / 10]),
    );
    return {
      checkouts: ids.length,
      seconds: (to.at - from.at) / 1_000,
      redisCallsPerCheckout: total / ids.length,
      redisCpuMsPerCheckout: (to.cpu - from.cpu) / ids.length,
      top,
    };
  } finally {
    await monitor.end();
    await app.stop();
  }
}

/**
 * `npm run bench -- redis-burst`: what Redis runs for one checkout when many arrive at once (a
 * burst of BENCH_BURST_CHECKOUTS, 200, offered within a second to one app process with its
 * default settings but OUTBOX_DELIVERY=queue), per mode, counted by INFO commandstats on a Redis of
 * its own, less what the idle app runs meanwhile: what a deployment whose deliveries go through the
 * queues (consumers on other hosts, or a local bus above its bound) pays Redis.
 */
export async function redisBurstBenchmark(): Promise<Record<string, unknown>> {
  const started = machine();
  const redis = await RedisServer.start();
  const modes: Record<string, BurstCost> = {};
  try {
    for (const mode of MODES) modes[mode] = await burstOf(mode, redis);
  } finally {
    await redis.stop();
  }
  console.log(`\nRedis a checkout, a burst of ${BURST} (load average ${started.loadAverage.join(' ')})`);
  for (const [mode, cost] of Object.entries(modes)) {
    console.log(
      `  ${mode}: ${cost.redisCallsPerCheckout.toFixed(0)} calls, ${cost.redisCpuMsPerCheckout.toFixed(2)} ms of Redis CPU ` +
        `(${cost.checkouts} checkouts done in ${cost.seconds.toFixed(1)} s); most: ${JSON.stringify(cost.top)}`,
    );
  }
  return { machine: started, burst: BURST, modes };
}
