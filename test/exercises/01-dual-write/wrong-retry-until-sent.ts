import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Broker, type Order, OrderPlaced, Orders, PlaceOrder, ShopModule } from './exercise';

/**
 * A wrong answer people write: "the order commits first; then, if the broker is down, I keep
 * trying in the background until it answers". The broker coming back is handled. The process
 * dying is not: the retries lived in its memory, and after the restart nothing remembers that a
 * committed order still has to be announced.
 */
@Injectable()
export class OrderDesk implements PlaceOrder {
  constructor(
    private readonly orders: Orders,
    private readonly broker: Broker,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  async placeOrder(order: Order): Promise<void> {
    await this.txHost.withTransaction(() => this.orders.save(order));
    void this.publishUntilSent({ orderId: order.id, amountCents: order.amountCents });
  }

  private async publishUntilSent(payload: { orderId: string; amountCents: number }): Promise<void> {
    for (;;) {
      try {
        return await this.broker.publish(OrderPlaced, payload);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200)); // the broker is down: try again soon
      }
    }
  }
}

@Module({ imports: [ShopModule], providers: [OrderDesk, { provide: PlaceOrder, useExisting: OrderDesk }] })
export class OrderDeskModule {}
