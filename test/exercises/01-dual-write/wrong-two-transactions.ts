import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { OutboxPublisher } from '../../../src/infra/outbox';
import { type Order, OrderPlaced, Orders, PlaceOrder, ShopModule } from './exercise';

/**
 * A wrong answer people write: "the outbox refuses to publish outside a transaction, so the order
 * gets its transaction and the message gets one of its own, right after". Two commits are two
 * writes again, only both to Postgres: the process that dies between them leaves an order whose
 * message was never written, and no relay can hand over a row that does not exist.
 */
@Injectable()
export class OrderDesk implements PlaceOrder {
  constructor(
    private readonly orders: Orders,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxPublisher,
  ) {}

  async placeOrder(order: Order): Promise<void> {
    await this.txHost.withTransaction(() => this.orders.save(order));
    await this.txHost.withTransaction(() =>
      this.outbox.publish(
        OrderPlaced,
        { orderId: order.id, amountCents: order.amountCents },
        { aggregateId: order.id },
      ),
    );
  }
}

@Module({ imports: [ShopModule], providers: [OrderDesk, { provide: PlaceOrder, useExisting: OrderDesk }] })
export class OrderDeskModule {}
