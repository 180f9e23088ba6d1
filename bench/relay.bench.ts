import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { randomUUID } from 'node:crypto';
import {
  BENCH_REDIS_URL,
  benchPrefix,
  cleanRedis,
  migrateBenchDatabase,
  recreateBenchDatabase,
  until,
} from './bench-env';
import { phase, track } from './progress';
import { printTable } from './report';
import { BenchHappened, CONCURRENCY, EVENTS, type Latency, latencyAt, outboxDrain, payload } from './relay-path';
import { RELAYS, relaysSideBySide, relaysTable } from './relays.bench';

const RELAY_BATCH = 500; // the relay's default (OUTBOX_RELAY_BATCH_SIZE)

/**
 * (a) BullMQ alone, doing what our relay and workers do minus Postgres: bulk-adding a backlog of
 * jobs like ours in batches of the relay's size while a no-op worker of the same concurrency
 * drains them, from the first add to the last job handled.
 */
async function rawBullmq(): Promise<{ eventsPerSecond: number }> {
  const connection = new IORedis(BENCH_REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('raw', { connection, prefix: benchPrefix });
  let handled = 0;
  const worker = new Worker('raw', async () => void (handled += 1), {
    connection,
    prefix: benchPrefix,
    concurrency: CONCURRENCY,
  });
  await worker.waitUntilReady();
  phase(`(a) BullMQ alone: adding ${EVENTS} jobs while a no-op worker drains them`);
  const stopTracking = track('(a) jobs handled', EVENTS, () => handled);
  const started = Date.now();
  for (let start = 0; start < EVENTS; start += RELAY_BATCH) {
    await queue.addBulk(
      Array.from({ length: Math.min(RELAY_BATCH, EVENTS - start) }, (_, i) => {
        const id = randomUUID();
        return {
          name: BenchHappened.type,
          data: {
            id,
            kind: 'event',
            type: BenchHappened.type,
            aggregateId: String(start + i),
            payload: payload(start + i),
            correlationId: 'bench',
            causationId: null,
            headers: {},
            createdAt: new Date().toISOString(),
            consumer: 'bench.noop',
          },
          opts: {
            jobId: `${id}--bench.noop`,
            attempts: 5,
            backoff: { type: 'exponential', delay: 500 },
            removeOnComplete: true,
            removeOnFail: true,
          },
        };
      }),
    );
  }
  await until(() => handled >= EVENTS, 600_000);
  stopTracking();
  const eventsPerSecond = EVENTS / ((Date.now() - started) / 1_000);
  await worker.close();
  await queue.close();
  connection.disconnect();
  return { eventsPerSecond };
}

export async function relayBenchmark(): Promise<Record<string, unknown>> {
  phase('relay: recreating and migrating the bench database');
  await recreateBenchDatabase();
  await migrateBenchDatabase();
  try {
    const raw = await rawBullmq();
    const { eventsPerSecond, app } = await outboxDrain(EVENTS);
    const light = await latencyAt(app, 'light');
    await app.close();
    phase('relay: done');
    const relays = await relaysSideBySide();
    const ratio = eventsPerSecond / raw.eventsPerSecond;
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const latencyRows = (name: string, l: Latency) => [
      [`${name}: ${l.rate} events/s, delay p50`, ms(l.p50), 'goal <= 10 ms'],
      [`${name}: ${l.rate} events/s, delay p99`, ms(l.p99), `goal <= 50 ms (max ${ms(l.max)})`],
      [
        `${name}: relay stage p50 / p99`,
        `${ms(l.relay.p50)} / ${ms(l.relay.p99)}`,
        `consumer stage ${ms(l.consume.p50)} / ${ms(l.consume.p99)}; this process used ${(l.nodeCpu * 100).toFixed(0)}% of a core`,
      ],
    ];
    const rows = [
      ['(a) raw BullMQ: bulk add + no-op worker', `${raw.eventsPerSecond.toFixed(0)} events/s`, 'baseline'],
      [
        '(b) outbox rows -> relay -> inbox + no-op handler',
        `${eventsPerSecond.toFixed(0)} events/s`,
        `${ratio.toFixed(2)} x (a), goal >= 0.50`,
      ],
      ...latencyRows('(c) at a light load', light),
      // (f): each relay's cells of the side-by-side table, one relay under the other.
      ...RELAYS.flatMap((relay) =>
        relaysTable(relays).map((row) => [`(f) ${relay} relay: ${row.figure}`, row[relay], '']),
      ),
    ];
    console.log(
      `\nrelay benchmark: ${EVENTS} events, worker concurrency ${CONCURRENCY}, ${new Date().toISOString()}\n`,
    );
    printTable(rows, 'lrl');
    return {
      events: EVENTS,
      concurrency: CONCURRENCY,
      raw,
      ours: { eventsPerSecond },
      ratio,
      light,
      relays,
    };
  } finally {
    await cleanRedis();
  }
}
