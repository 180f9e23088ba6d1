import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { OutboxPublisher } from '../../../src/infra/outbox';
import { Broker, type Order, OrderPlaced, Orders, PlaceOrder, ShopModule } from './exercise';

/**
 * Exercise 01, the dual write: place an order, that is, save it and tell shipping about it.
 * See README.md for the story and what "done" means.
 *
 * At hand:
 * - `this.orders.save(order)`: writes the order's row (in the current transaction, if any);
 * - `this.broker.publish(OrderPlaced, payload)`: hands the news to the broker (Redis) right now;
 * - `this.txHost.withTransaction(async () => { ... })`: runs its body in one database transaction
 *   (the lesson's `dataSource.transaction`); what the body writes commits together, or not at all;
 * - `this.outbox.publish(OrderPlaced, payload, { aggregateId })`: writes the message to the outbox
 *   table, in the current transaction; the relay hands it to the broker after the commit.
 */
@Injectable()
export class OrderDesk implements PlaceOrder {
  constructor(
    private readonly orders: Orders,
    private readonly broker: Broker,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxPublisher,
  ) {}

  async placeOrder(order: Order): Promise<void> {
    // TODO: two writes to two systems, and nothing ties them together. Whatever happens between
    // them (the process dies, the broker is down, the database refuses the commit), the order and
    // its announcement must exist together, or neither.
    await this.orders.save(order);
    await this.broker.publish(OrderPlaced, { orderId: order.id, amountCents: order.amountCents });
  }
}

// The exercise runs your desk inside the shop: nothing to change below.
@Module({ imports: [ShopModule], providers: [OrderDesk, { provide: PlaceOrder, useExisting: OrderDesk }] })
export class OrderDeskModule {}
