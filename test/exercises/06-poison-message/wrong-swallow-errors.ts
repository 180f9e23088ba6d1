import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ISSUE_INVOICE, OrderConfirmed, type OrderConfirmedPayload } from './exercise';

/**
 * Exercise 06, a wrong answer people write: catch everything and log it, "so that one bad message
 * cannot block the queue". The queue moves on, and so does the message: the transport sees a
 * handler that succeeded, records the delivery as done, and the order is never invoiced. Nothing
 * reaches the dead letters, so after the fix there is nothing to redrive.
 */
@Injectable()
export class InvoiceIssuer {
  private readonly logger = new Logger('InvoiceIssuer');

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(OrderConfirmed.type)
  @Consumer(ISSUE_INVOICE)
  async issueInvoice(order: OrderConfirmedPayload): Promise<void> {
    try {
      const [rate] = await this.txHost.tx.query<Array<{ rate_percent: number }>>(
        `SELECT rate_percent FROM ex06.tax_rates WHERE country = $1`,
        [order.country],
      );
      if (!rate) throw new Error(`No tax rate for ${order.country}`);
      await this.txHost.tx.query(
        `INSERT INTO ex06.invoices (order_id, country, total_cents, tax_cents) VALUES ($1, $2, $3, $4)`,
        [order.orderId, order.country, order.totalCents, Math.round((order.totalCents * rate.rate_percent) / 100)],
      );
    } catch (error) {
      this.logger.error(`Could not invoice order ${order.orderId}: ${String(error)}`);
    }
  }
}
