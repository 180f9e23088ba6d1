import { Injectable } from '@nestjs/common';
import { type InvoiceRow, InvoicesRepository, toInvoiceState } from '../database/invoices.repository';
import { PaymentsRepository } from '../database/payments.repository';
import { decideIssue } from '../domain/invoice';
import { FiscalAuthority } from '../invoicing/fiscal-authority';

export interface IssueInvoiceInput {
  checkoutId: string;
  idempotencyKey: string;
}

/** Who bought what: the invoice's answer carries it, for the welcome that follows. */
export interface Buyer {
  userId: string;
  planId: string;
}

export type IssueOutcome =
  { outcome: 'issued'; invoice: InvoiceRow; buyer: Buyer; isNew: boolean } | { outcome: 'refused'; reason: string };

/**
 * After the capture: the invoice of the money taken, asked of the fiscal authority under the
 * step's key. Retriable and never compensated: an authority that does not answer (down for
 * hours, as they are) throws, and the step asks again under the same key, which cannot make a
 * second invoice. A refusal is definitive, and after the pivot it is a person's to resolve.
 */
@Injectable()
export class IssueInvoice {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly payments: PaymentsRepository,
    private readonly authority: FiscalAuthority,
  ) {}

  async execute({ checkoutId, idempotencyKey }: IssueInvoiceInput): Promise<IssueOutcome> {
    const invoice = await this.invoices.lockByCheckout(checkoutId);
    const payment = await this.payments.lockByCheckout(checkoutId);
    if (!payment) return { outcome: 'refused', reason: 'no payment' };
    const buyer = { userId: payment.user_id!, planId: payment.plan_id! };
    if (decideIssue(invoice && toInvoiceState(invoice)).kind === 'already') {
      return { outcome: 'issued', invoice: invoice!, buyer, isNew: false };
    }
    // Only money taken and kept is invoiced: a refund before the invoice leaves nothing to invoice.
    if (payment.status !== 'captured') return { outcome: 'refused', reason: `payment is ${payment.status}` };
    const amount = { cents: payment.amount_cents!, currency: payment.currency! };
    const response = await this.authority.issueInvoice(idempotencyKey, {
      reference: checkoutId,
      buyer: payment.user_id!,
      description: `plan ${payment.plan_id}`,
      amountCents: amount.cents,
      currency: amount.currency,
    });
    if (!response.authorized) return { outcome: 'refused', reason: response.reason };
    return {
      outcome: 'issued',
      invoice: await this.invoices.insert(checkoutId, response.invoice, amount),
      buyer,
      isNew: true,
    };
  }
}
