import { Injectable, Module } from '@nestjs/common';
import { Broker, type Order, OrderPlaced, Orders, PlaceOrder, ShopModule } from './exercise';

/**
 * A wrong answer people write: "if saving then publishing loses the message, publish first".
 * A crash can no longer lose the announcement, but when the save fails after the publish,
 * shipping prepares a parcel for an order that does not exist (the lesson's worst case).
 */
@Injectable()
export class OrderDesk implements PlaceOrder {
  constructor(
    private readonly orders: Orders,
    private readonly broker: Broker,
  ) {}

  async placeOrder(order: Order): Promise<void> {
    await this.broker.publish(OrderPlaced, { orderId: order.id, amountCents: order.amountCents });
    await this.orders.save(order);
  }
}

@Module({ imports: [ShopModule], providers: [OrderDesk, { provide: PlaceOrder, useExisting: OrderDesk }] })
export class OrderDeskModule {}
