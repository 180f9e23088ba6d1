import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, PermanentFailure } from '../../../src/infra/outbox';
import { ISSUE_INVOICE, OrderConfirmed, type OrderConfirmedPayload } from './exercise';

/**
 * Exercise 06, the reference answer. A country without a tax rate stays without one however often
 * the invoice is tried: that is a PermanentFailure, dead-lettered at once for an operator, who adds
 * the rate and redrives it. Everything else it may throw (a lock timeout, a dropped connection, a
 * deadlock) is left as it is, and retried: the handler names what it knows to be hopeless, and
 * only that.
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
    if (!rate) throw new PermanentFailure(`No tax rate for ${order.country}: add it to ex06.tax_rates, then redrive`);
    await this.txHost.tx.query(
      `INSERT INTO ex06.invoices (order_id, country, total_cents, tax_cents) VALUES ($1, $2, $3, $4)`,
      [order.orderId, order.country, order.totalCents, Math.round((order.totalCents * rate.rate_percent) / 100)],
    );
  }
}
