import { type INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { IsInt, IsString } from 'class-validator';
import { DataSource } from 'typeorm';
import { Consumer, defineEvent, type Delivery, OnEvent, OutboxPublisher } from '../src/infra/outbox';
import { BENCH_DATABASE_URL, distribution, type Distribution, openLoop, startApp, until } from './bench-env';
import { phase, track } from './progress';

/**
 * Our path from a committed outbox row to a handler, as the relay benchmark and the peer
 * benchmark both measure it: a no-op consumer with inbox deduplication, a drain of a backlog and
 * the delay of each message under an open-loop load.
 */
class BenchPayload {
  @IsInt() seq!: number;
  @IsString() note!: string;
}
export const BenchHappened = defineEvent('bench.something-happened.v1', BenchPayload);
export const payload = (seq: number) => ({ seq, note: 'a payload of a typical size, with a few fields in it' });

/** The relay benchmarks' sizes (docs/performance.md lists them), shared by relay, relays and peer. */
export const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
export const CONCURRENCY = Number(process.env.OUTBOX_WORKER_CONCURRENCY ?? 64); // the workers' default
export const LIGHT_RATE = Number(process.env.BENCH_LIGHT_RATE ?? 50);
export const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);

@Injectable()
export class NoopConsumer {
  handled = 0;
  delays: number[] | undefined;

  @OnEvent(BenchHappened.type)
  @Consumer('bench.noop')
  async noop(_payload: BenchPayload, delivery: Delivery): Promise<void> {
    this.handled += 1;
    this.delays?.push(Date.now() - Date.parse(delivery.createdAt));
  }
}

@Module({ providers: [NoopConsumer] })
export class BenchModule {}

/**
 * The settings of an app on our path: relay and workers in the bench's process, and every message
 * through the relay and the queues. The default local bus would hand the light load's messages to
 * the no-op consumer at their commit, and (c) and (f) would time no relay at all (ADR 0096).
 */
export const RELAY_PATH_ENV = { APP_ROLES: 'api,relay,worker', OUTBOX_DELIVERY: 'queue' };

/** Outbox rows `from` to `to` (their seq) in one statement: committed messages for the relay to find. */
export async function writeBacklog(seed: DataSource, from: number, to: number): Promise<void> {
  await seed.query(
    `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id, created_at)
     SELECT gen_random_uuid(), 'event', $1, g::text,
            jsonb_build_object('seq', g, 'note', $2::text), 'backlog', clock_timestamp()
       FROM generate_series($3::int, $4::int) g`,
    [BenchHappened.type, payload(0).note, from, to],
  );
}

export interface Latency extends Distribution {
  rate: number;
  /** From the row being written to the relay marking it pushed. */
  relay: { p50: number; p99: number };
  /** From being pushed to the consumer recording it in its inbox. */
  consume: { p50: number; p99: number };
  /** Share of one core that this process used meanwhile. */
  nodeCpu: number;
}

/**
 * (b) Our path: a backlog of `events` committed outbox rows, relayed and handled by a no-op
 * consumer that records each delivery in the inbox, from the app starting to the last one
 * handled. The app stays up for latencyAt.
 */
export async function outboxDrain(
  events: number,
  tag = '(b)',
): Promise<{ eventsPerSecond: number; app: INestApplicationContext }> {
  phase(`${tag} our path: writing a backlog of ${events} outbox rows`);
  const seed = new DataSource({ type: 'postgres', url: BENCH_DATABASE_URL });
  await seed.initialize();
  await writeBacklog(seed, 1, events);
  await seed.destroy();

  const app = await startApp({ ...RELAY_PATH_ENV, OUTBOX_WORKER_CONCURRENCY: String(CONCURRENCY) }, [BenchModule]);
  const consumer = app.get(NoopConsumer);
  const handledAtStart = consumer.handled;
  phase(`${tag} our path: relaying the backlog to a no-op consumer with inbox deduplication`);
  const stopTracking = track(`${tag} messages handled`, events, () => consumer.handled);
  const started = Date.now();
  await until(() => consumer.handled >= events, 600_000);
  stopTracking();
  return { eventsPerSecond: (events - handledAtStart) / ((Date.now() - started) / 1_000), app };
}

/**
 * (c) An open-loop load: LIGHT_RATE business transactions a second, each writing one event, whatever
 * the system's state, for LOAD_SECONDS; each message's delay runs from being written (inside its
 * transaction) to being handled. The producers run in the same process as the relay and the
 * workers, on the same machine as Postgres and Redis.
 */
export async function latencyAt(app: INestApplicationContext, label: string, tag = '(c)'): Promise<Latency> {
  const consumer = app.get(NoopConsumer);
  const txHost = app.get(TransactionHost);
  const publisher = app.get(OutboxPublisher);
  consumer.delays = [];
  const total = Math.max(1, Math.round(LIGHT_RATE * LOAD_SECONDS));
  const target = consumer.handled + total;
  phase(`${tag} delay at ${LIGHT_RATE} events/s (${label}): ${total} one-event transactions over ${LOAD_SECONDS} s`);
  const stopTracking = track(`${tag} ${label}: handled`, total, () => consumer.handled - (target - total));
  const cpuAtStart = process.cpuUsage();
  const started = Date.now();
  await openLoop(LIGHT_RATE, total, (seq) => {
    void txHost.withTransaction(() => publisher.publish(BenchHappened, payload(seq), { aggregateId: label }));
  });
  await until(() => consumer.handled >= target, 300_000);
  stopTracking();
  const cpu = process.cpuUsage(cpuAtStart);
  const nodeCpu = (cpu.user + cpu.system) / 1_000 / (Date.now() - started);
  const delays = distribution(consumer.delays);
  consumer.delays = undefined;
  const [stages] = await app
    .get(DataSource)
    .query<Array<{ relay_p50: number; relay_p99: number; consume_p50: number; consume_p99: number }>>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM m.published_at - m.created_at)) * 1000 AS relay_p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM m.published_at - m.created_at)) * 1000 AS relay_p99,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM i.handled_at - m.published_at)) * 1000 AS consume_p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM i.handled_at - m.published_at)) * 1000 AS consume_p99
       FROM outbox.messages m JOIN outbox.inbox i ON i.message_id = m.id
      WHERE m.aggregate_id = $1`,
      [label],
    );
  return {
    rate: LIGHT_RATE,
    ...delays,
    relay: { p50: stages.relay_p50, p99: stages.relay_p99 },
    consume: { p50: stages.consume_p50, p99: stages.consume_p99 },
    nodeCpu,
  };
}
