import { type DynamicModule, Inject, Injectable, Module, type Type } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { AWARD_POINTS, OrderPlaced, type OrderPlacedPayload, type ProcessedMessages, SEND_RECEIPT } from './exercise';

/**
 * Exercise 04: the two consumers, given. Read them to see how your dedup is used; the exercise is
 * in your ProcessedMessages, not here.
 *
 * Each runs in the transaction that the transport opens for the delivery (`txHost.tx`), so its
 * effect and its record commit together, or neither does. `dedup: 'handler'` tells the transport
 * not to skip duplicates: every delivery of a message reaches the handler, which must be
 * idempotent on its own.
 */
export const PROCESSED_MESSAGES = 'PROCESSED_MESSAGES';

@Injectable()
export class LoyaltyPoints {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(PROCESSED_MESSAGES) private readonly processed: ProcessedMessages,
  ) {}

  @OnEvent(OrderPlaced.type)
  @Consumer(AWARD_POINTS, { dedup: 'handler' })
  async awardPoints(order: OrderPlacedPayload, delivery: Delivery): Promise<void> {
    if (await this.processed.exists(delivery)) return; // already processed: ignore it
    await this.txHost.tx.query(`INSERT INTO ex04.points (order_id, points) VALUES ($1, $2)`, [
      order.orderId,
      Math.floor(order.totalCents / 100),
    ]);
    await this.processed.record(delivery); // in the same transaction as the points
  }
}

@Injectable()
export class Receipts {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(PROCESSED_MESSAGES) private readonly processed: ProcessedMessages,
  ) {}

  @OnEvent(OrderPlaced.type)
  @Consumer(SEND_RECEIPT, { dedup: 'handler' })
  async sendReceipt(order: OrderPlacedPayload, delivery: Delivery): Promise<void> {
    if (await this.processed.exists(delivery)) return;
    // Stands for the email: a row in the outbox of the mail service, sent once per row.
    await this.txHost.tx.query(`INSERT INTO ex04.receipts (order_id) VALUES ($1)`, [order.orderId]);
    await this.processed.record(delivery);
  }
}

@Module({})
export class PerConsumerDedupModule {
  /** The two consumers, with your dedup. */
  static with(processedMessages: Type<ProcessedMessages>): DynamicModule {
    return {
      module: PerConsumerDedupModule,
      providers: [LoyaltyPoints, Receipts, { provide: PROCESSED_MESSAGES, useClass: processedMessages }],
    };
  }
}
