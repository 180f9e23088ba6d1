import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Broker, type Order, OrderPlaced, Orders, PlaceOrder, ShopModule } from './exercise';

/**
 * A wrong answer people write: "publish inside the transaction, so that a failed publish rolls
 * the order back". It does, but the broker is not in the transaction: when the commit itself
 * fails, the message has already left, for an order that never existed.
 */
@Injectable()
export class OrderDesk implements PlaceOrder {
  constructor(
    private readonly orders: Orders,
    private readonly broker: Broker,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  async placeOrder(order: Order): Promise<void> {
    await this.txHost.withTransaction(async () => {
      await this.orders.save(order);
      await this.broker.publish(OrderPlaced, { orderId: order.id, amountCents: order.amountCents });
    });
  }
}

@Module({ imports: [ShopModule], providers: [OrderDesk, { provide: PlaceOrder, useExisting: OrderDesk }] })
export class OrderDeskModule {}
