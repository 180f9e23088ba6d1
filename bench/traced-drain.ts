// Must come first: with OTEL_* variables set, tracing patches pg, ioredis and http before they load.
import '../src/infra/tracing/tracing.start';
import { Injectable, Module } from '@nestjs/common';
import { IsInt, IsString } from 'class-validator';
import { DataSource } from 'typeorm';
import { Consumer, defineEvent, OnEvent } from '../src/infra/outbox';
import { tracingRequested } from '../src/infra/tracing/tracing.sdk';
import { BENCH_DATABASE_URL, cleanRedis, startApp, until } from './bench-env';

/**
 * One drain of a backlog of outbox rows through the relay to a no-op consumer with inbox, in a
 * process of its own, so that tracing is on or off from the start as the OTEL_* variables say.
 * Prints `{ eventsPerSecond, traced }` as JSON on its last line. Run by tracing.bench.ts.
 */
const EVENTS = Number(process.env.BENCH_TRACING_EVENTS ?? 10_000);

class DrainPayload {
  @IsInt() seq!: number;
  @IsString() note!: string;
}
const DrainHappened = defineEvent('bench.drain-happened.v1', DrainPayload);

@Injectable()
class CountingConsumer {
  handled = 0;

  @OnEvent(DrainHappened.type)
  @Consumer('bench.count')
  async count(): Promise<void> {
    this.handled += 1;
  }
}

@Module({ providers: [CountingConsumer] })
class DrainModule {}

async function main(): Promise<void> {
  const seed = new DataSource({ type: 'postgres', url: BENCH_DATABASE_URL });
  await seed.initialize();
  await seed.query(
    `INSERT INTO outbox.messages (id, kind, type, aggregate_id, payload, correlation_id, created_at)
     SELECT gen_random_uuid(), 'event', $1, g::text, jsonb_build_object('seq', g, 'note', 'a note'), 'drain', clock_timestamp()
       FROM generate_series(1, $2) g`,
    [DrainHappened.type, EVENTS],
  );
  await seed.destroy();

  const app = await startApp({ APP_ROLES: 'relay,worker' }, [DrainModule]);
  const consumer = app.get(CountingConsumer);
  const started = Date.now();
  await until(() => consumer.handled >= EVENTS, 600_000);
  const eventsPerSecond = EVENTS / ((Date.now() - started) / 1_000);
  await app.close();
  await cleanRedis();
  console.log(JSON.stringify({ eventsPerSecond, traced: tracingRequested() }));
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
