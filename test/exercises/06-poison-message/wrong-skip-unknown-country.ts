import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ISSUE_INVOICE, OrderConfirmed, type OrderConfirmedPayload } from './exercise';

/**
 * Exercise 06, a wrong answer people write: "retrying cannot bring a tax rate, so an order from a
 * country without one is skipped with a warning; every other error is thrown, and retried". The
 * lock is handled right. The Iceland order is not: the transport sees a handler that succeeded,
 * records it as done, and it is never invoiced. The warning scrolls by; no operator sees a dead
 * letter, and after the rate is added there is nothing to redrive.
 */
@Injectable()
export class InvoiceIssuer {
  private readonly logger = new Logger('InvoiceIssuer');

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(OrderConfirmed.type)
  @Consumer(ISSUE_INVOICE)
  async issueInvoice(order: OrderConfirmedPayload): Promise<void> {
    const [rate] = await this.txHost.tx.query<Array<{ rate_percent: number }>>(
      `SELECT rate_percent FROM ex06.tax_rates WHERE country = $1`,
      [order.country],
    );
    if (!rate) {
      this.logger.warn(`No tax rate for ${order.country}: order ${order.orderId} skipped`);
      return;
    }
    await this.txHost.tx.query(
      `INSERT INTO ex06.invoices (order_id, country, total_cents, tax_cents) VALUES ($1, $2, $3, $4)`,
      [order.orderId, order.country, order.totalCents, Math.round((order.totalCents * rate.rate_percent) / 100)],
    );
  }
}
