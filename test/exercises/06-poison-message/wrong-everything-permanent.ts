import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, PermanentFailure } from '../../../src/infra/outbox';
import { ISSUE_INVOICE, OrderConfirmed, type OrderConfirmedPayload } from './exercise';

/**
 * Exercise 06, a wrong answer people write: "a message that fails is poison", so every failure
 * goes to the dead letters at once. The unknown country does, as it should; but so does a good
 * order whose insert waited on a lock for a moment, which its first retry would have invoiced.
 * Good orders now wait for an operator who has no idea why they are there.
 */
@Injectable()
export class InvoiceIssuer {
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
      throw new PermanentFailure(`Could not invoice order ${order.orderId}: ${String(error)}`, { cause: error });
    }
  }
}
