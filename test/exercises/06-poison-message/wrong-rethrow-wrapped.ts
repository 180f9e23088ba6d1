import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, PermanentFailure } from '../../../src/infra/outbox';
import { ISSUE_INVOICE, OrderConfirmed, type OrderConfirmedPayload } from './exercise';

/**
 * Exercise 06, a wrong answer people write: "a missing rate is a PermanentFailure; and every
 * failure is logged with its order, then thrown again with a clearer message (the original kept
 * as its cause)". The new Error is clearer to read and tells the transport nothing: what the
 * handler throws is an Error, not the PermanentFailure it carries, so the Iceland order is
 * retried, for minutes, like a lock timeout.
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
      if (!rate) throw new PermanentFailure(`No tax rate for ${order.country}`);
      await this.txHost.tx.query(
        `INSERT INTO ex06.invoices (order_id, country, total_cents, tax_cents) VALUES ($1, $2, $3, $4)`,
        [order.orderId, order.country, order.totalCents, Math.round((order.totalCents * rate.rate_percent) / 100)],
      );
    } catch (error) {
      this.logger.error(`Could not invoice order ${order.orderId}: ${String(error)}`);
      throw new Error(`Could not invoice order ${order.orderId}: ${(error as Error).message}`, { cause: error });
    }
  }
}
