import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { OutboxPublisher } from '../../../src/infra/outbox';
import { type Order, OrderPlaced, Orders, PlaceOrder, ShopModule } from './exercise';

/**
 * Exercise 01, the reference answer: the transactional outbox. The order's row and the message
 * announcing it are two rows of ONE database transaction: both commit, or neither. Handing the
 * message to the broker is the relay's job, after the commit, retried until it succeeds.
 */
@Injectable()
export class OrderDesk implements PlaceOrder {
  constructor(
    private readonly orders: Orders,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxPublisher,
  ) {}

  async placeOrder(order: Order): Promise<void> {
    await this.txHost.withTransaction(async () => {
      await this.orders.save(order);
      // Not sent: written. A crash after the commit finds it in the table; a broker that is down
      // only delays the relay; a commit that fails takes the message with it.
      await this.outbox.publish(
        OrderPlaced,
        { orderId: order.id, amountCents: order.amountCents },
        { aggregateId: order.id },
      );
    });
  }
}

@Module({ imports: [ShopModule], providers: [OrderDesk, { provide: PlaceOrder, useExisting: OrderDesk }] })
export class OrderDeskModule {}
