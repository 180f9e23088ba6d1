import {
  Body,
  Controller,
  HttpCode,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
  Post,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Queue, Worker } from 'bullmq';
import { IsInt, IsUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { DataSource, type MigrationInterface, type QueryRunner, type TransactionCommitEvent } from 'typeorm';
import { Public } from '../../../src/infra/auth/access';
import { DatabaseConnector } from '../../../src/infra/database/database.connector';
import { DatabaseModule } from '../../../src/infra/database/database.module';
import { describeError } from '../../../src/infra/errors';
import { crashNow, Faults } from '../../../src/infra/faults/faults';
import { Consumer, defineEvent, type Delivery, type MessageContract } from '../../../src/infra/outbox';
import { OutboxQueues } from '../../../src/infra/outbox/outbox.queues';
import { queuePrefixOf } from '../../../src/infra/outbox/queue-prefix-of';
import { RedisConnections } from '../../../src/infra/redis/redis.connections';

/**
 * Exercise 01's world: a shop that saves orders, a message broker, and shipping, which prepares a
 * parcel each time it hears of an order, whichever way the news comes (through the broker, or
 * through the outbox). Your code (starter.ts) sits between the two: it places an order.
 */

export class OrderPlacedPayload {
  @IsUUID() orderId!: string;
  @IsInt() amountCents!: number;
}
export const OrderPlaced = defineEvent('shop.order-placed.v1', OrderPlacedPayload);

export interface Order {
  id: string;
  amountCents: number;
}

/** What your answer provides: place an order (save it, and tell shipping). */
export abstract class PlaceOrder {
  abstract placeOrder(order: Order): Promise<void>;
}

/** Where the story crashes the process: right after the order's row is committed. */
export const CRASH_AFTER_ORDER_COMMIT = 'shop.after-order-commit';

class CreateShopSchema1795990001000 implements MigrationInterface {
  name = 'CreateShopSchema1795990001000';
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SCHEMA shop`);
    await db.query(`CREATE TABLE shop.orders (id uuid PRIMARY KEY, amount_cents integer NOT NULL)`);
    // One row per announcement that reached shipping: a second one would be a second parcel.
    await db.query(`CREATE TABLE shop.parcels (
      order_id uuid NOT NULL, via text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    // The orders whose commit the database will refuse (the story's "the database fails").
    await db.query(`CREATE TABLE shop.doomed_commits (order_id uuid PRIMARY KEY)`);
    await db.query(`CREATE FUNCTION shop.fail_doomed_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM shop.doomed_commits WHERE order_id = NEW.id) THEN
          RAISE EXCEPTION 'the database failed to commit order %', NEW.id;
        END IF;
        RETURN NULL;
      END $$`);
    // Deferred: it fires at COMMIT, after every statement of the transaction succeeded.
    await db.query(`CREATE CONSTRAINT TRIGGER fail_doomed_commit AFTER INSERT ON shop.orders
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION shop.fail_doomed_commit()`);
  }
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP SCHEMA shop CASCADE`);
  }
}

/**
 * The orders table. `save` writes in the current transaction when there is one
 * (txHost.withTransaction), else on its own, committed at once.
 */
@Injectable()
export class Orders implements OnModuleInit, OnApplicationBootstrap {
  private readonly crashAfterCommit = new WeakSet<object>();

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
    private readonly faults: Faults,
  ) {}

  onModuleInit(): void {
    this.faults.declare({
      point: CRASH_AFTER_ORDER_COMMIT,
      actions: ['crash'],
      description: 'the process dies as soon as an order row is committed',
    });
  }

  onApplicationBootstrap(): void {
    void this.connector.ready.then(() => this.dataSource.subscribers.push(this));
  }

  async save(order: Order): Promise<void> {
    const crash = this.faults.take(CRASH_AFTER_ORDER_COMMIT) === 'crash';
    await this.txHost.tx.query(`INSERT INTO shop.orders (id, amount_cents) VALUES ($1, $2)`, [
      order.id,
      order.amountCents,
    ]);
    if (!crash) return;
    const runner = this.txHost.isTransactionActive() ? this.txHost.tx.queryRunner : undefined;
    if (runner) this.crashAfterCommit.add(runner);
    else crashNow(CRASH_AFTER_ORDER_COMMIT); // no transaction: the row is committed already
  }

  /** TypeORM calls this after every commit: the one carrying an armed order ends the process. */
  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    if (queryRunner.isTransactionActive || !this.crashAfterCommit.has(queryRunner)) return;
    crashNow(CRASH_AFTER_ORDER_COMMIT);
  }
}

/**
 * The broker's queue, under the deployment's prefix as the outbox's queues are: a wait for quiet
 * (test/support/quiet.ts) sees its jobs too, and counts only once they are done.
 */
const BROKER_QUEUE = 'shop-broker';

/**
 * A message broker, as the naive code sees one: `publish` hands the message to Redis at once
 * (a BullMQ queue) and fails at once when Redis does not answer. Nothing ties it to the database.
 */
@Injectable()
export class Broker implements OnApplicationShutdown {
  private queue?: Queue;

  constructor(
    private readonly redis: RedisConnections,
    private readonly queues: OutboxQueues,
  ) {}

  async publish<P extends object>(contract: MessageContract<P>, payload: P): Promise<void> {
    this.queue ??= new Queue(BROKER_QUEUE, {
      connection: this.redis.open(BROKER_QUEUE, 'command'),
      prefix: queuePrefixOf(await this.queues.ready, BROKER_QUEUE),
    });
    await this.queue.add(contract.type, { id: randomUUID(), type: contract.type, payload });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
  }
}

/** Shipping: one parcel per announcement it hears, by whichever way it came. */
@Injectable()
export class Shipping implements OnApplicationBootstrap, OnApplicationShutdown {
  private worker?: Worker;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly redis: RedisConnections,
    private readonly queues: OutboxQueues,
    private readonly connector: DatabaseConnector,
  ) {}

  /** Through the outbox: a durable handler in the lesson's form, delivered once per message. */
  @OnEvent(OrderPlaced.type)
  @Consumer('shipping.prepare-parcel')
  async fromOutbox(payload: OrderPlacedPayload, delivery: Delivery): Promise<void> {
    await this.prepareParcel(payload.orderId, `outbox message ${delivery.id}`);
  }

  /** Through the broker: whatever the broker hands over. */
  onApplicationBootstrap(): void {
    void Promise.all([this.connector.ready, this.queues.ready]).then(([, prefix]) => {
      this.worker = new Worker(
        BROKER_QUEUE,
        async (job) => this.prepareParcel((job.data.payload as OrderPlacedPayload).orderId, `broker job ${job.id}`),
        {
          connection: this.redis.open('shop-broker-worker', 'blocking'),
          prefix: queuePrefixOf(prefix, BROKER_QUEUE),
          lockDuration: 1_000,
          stalledInterval: 1_000,
          runRetryDelay: 500,
        },
      );
      this.worker.on('error', () => undefined); // Redis going away is part of the story
    });
  }

  private async prepareParcel(orderId: string, via: string): Promise<void> {
    await this.txHost.tx.query(`INSERT INTO shop.parcels (order_id, via) VALUES ($1, $2)`, [orderId, via]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close().catch(() => undefined);
  }
}

class OrderDto {
  @IsUUID() id!: string;
  @IsInt() amountCents!: number;
}

/** The shop's till: asks your answer to place the order, and says how that went. */
@Public()
@Controller('exercise/orders')
class OrdersController {
  constructor(private readonly moduleRef: ModuleRef) {}

  @Post()
  @HttpCode(200)
  async place(@Body() order: OrderDto): Promise<{ placed: boolean; error?: string }> {
    try {
      await this.moduleRef
        .get(PlaceOrder, { strict: false })
        .placeOrder({ id: order.id, amountCents: order.amountCents });
      return { placed: true };
    } catch (error) {
      return { placed: false, error: describeError(error) };
    }
  }
}

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateShopSchema1795990001000] })],
  controllers: [OrdersController],
  providers: [Orders, Broker, Shipping],
  exports: [Orders, Broker],
})
export class ShopModule {}
