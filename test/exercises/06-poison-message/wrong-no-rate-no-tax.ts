import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ISSUE_INVOICE, OrderConfirmed, type OrderConfirmedPayload } from './exercise';

/**
 * Exercise 06, a wrong answer people write: "a missing tax rate must not block an order: without
 * one, the tax is 0, and the invoice goes out". Nothing is poison any more, and nothing is right:
 * the Iceland order is invoiced without Iceland's tax, no operator hears of it, and adding the
 * rate later changes no invoice already issued.
 */
@Injectable()
export class InvoiceIssuer {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(OrderConfirmed.type)
  @Consumer(ISSUE_INVOICE)
  async issueInvoice(order: OrderConfirmedPayload): Promise<void> {
    const [rate] = await this.txHost.tx.query<Array<{ rate_percent: number }>>(
      `SELECT rate_percent FROM ex06.tax_rates WHERE country = $1`,
      [order.country],
    );
    const percent = rate?.rate_percent ?? 0;
    await this.txHost.tx.query(
      `INSERT INTO ex06.invoices (order_id, country, total_cents, tax_cents) VALUES ($1, $2, $3, $4)`,
      [order.orderId, order.country, order.totalCents, Math.round((order.totalCents * percent) / 100)],
    );
  }
}
