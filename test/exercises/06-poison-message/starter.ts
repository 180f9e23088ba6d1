import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ISSUE_INVOICE, OrderConfirmed, type OrderConfirmedPayload } from './exercise';

/**
 * Exercise 06, your answer: invoicing's handler. Whatever it throws, the transport rolls back and
 * retries with a growing backoff; after the last attempt it puts the delivery in the dead letters
 * (GET /admin/dead-letters), where an operator can redrive it once the cause is fixed. In this
 * deployment the retries take a long while to run out: 10 attempts, from 1 s apart to minutes.
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
    // TODO: some failures pass if you try again a little later; others will fail on every attempt
    // until someone changes something. Tell the transport which is which (src/infra/outbox has
    // what it takes), so that the hopeless ones reach an operator now, not after the last retry.
    if (!rate) throw new Error(`No tax rate for ${order.country}`);
    await this.txHost.tx.query(
      `INSERT INTO ex06.invoices (order_id, country, total_cents, tax_cents) VALUES ($1, $2, $3, $4)`,
      [order.orderId, order.country, order.totalCents, Math.round((order.totalCents * rate.rate_percent) / 100)],
    );
  }
}
