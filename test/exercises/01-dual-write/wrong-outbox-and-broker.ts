import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { OutboxPublisher } from '../../../src/infra/outbox';
import { Broker, type Order, OrderPlaced, Orders, PlaceOrder, ShopModule } from './exercise';

/**
 * A wrong answer people write: "the outbox is the safety net; shipping should not wait for the
 * relay, so once the order commits I publish to the broker too, and a failed publish is fine, the
 * outbox has it". When nothing fails, shipping hears of the order twice, by the broker and by the
 * relay, and prepares two parcels: the two ways do not know of each other.
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
    const payload = { orderId: order.id, amountCents: order.amountCents };
    await this.txHost.withTransaction(async () => {
      await this.orders.save(order);
      await this.outbox.publish(OrderPlaced, payload, { aggregateId: order.id });
    });
    await this.broker.publish(OrderPlaced, payload).catch(() => undefined);
  }
}

@Module({ imports: [ShopModule], providers: [OrderDesk, { provide: PlaceOrder, useExisting: OrderDesk }] })
export class OrderDeskModule {}
