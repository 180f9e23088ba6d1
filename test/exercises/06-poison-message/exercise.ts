import type { Type } from '@nestjs/common';
import { IsInt, IsString, IsUUID, Length, Min } from 'class-validator';
import { defineEvent } from '../../../src/infra/outbox';

/**
 * Exercise 06: what the three answers (starter, solution, wrong-*) share. The shop confirms
 * orders; invoicing issues an invoice for each, with the tax rate of the buyer's country.
 */
export class OrderConfirmedPayload {
  @IsUUID() orderId!: string;
  /** ISO 3166 code of the buyer's country. */
  @IsString() @Length(2, 2) country!: string;
  @IsInt() @Min(0) totalCents!: number;
}
export const OrderConfirmed = defineEvent('shop.order-confirmed.v1', OrderConfirmedPayload);

/** The consumer your handler declares: `@Consumer(ISSUE_INVOICE)`. */
export const ISSUE_INVOICE = 'invoicing.issue-invoice';

/**
 * The tax rates invoicing knows, and the invoices it issued: no unique key on the order, so that
 * an order invoiced twice shows as two rows.
 */
export const schema = `
  CREATE SCHEMA ex06;
  CREATE TABLE ex06.tax_rates (country char(2) PRIMARY KEY, rate_percent integer NOT NULL);
  INSERT INTO ex06.tax_rates VALUES ('PT', 23), ('DE', 19), ('FR', 20), ('BR', 17);
  CREATE TABLE ex06.invoices (
    order_id uuid NOT NULL,
    country char(2) NOT NULL,
    total_cents integer NOT NULL,
    tax_cents integer NOT NULL,
    issued_at timestamptz NOT NULL DEFAULT clock_timestamp()
  );
`;

/** What your answer exports: the provider whose handler issues the invoices. */
export interface PoisonMessageAnswer {
  InvoiceIssuer: Type<unknown>;
}
