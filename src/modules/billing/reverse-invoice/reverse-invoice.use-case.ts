import { Inject, Injectable } from '@nestjs/common';
import { type InvoiceRow, InvoicesRepository, toInvoiceState } from '../database/invoices.repository';
import { decideReversal } from '../domain/invoice';
import {
  CANCEL_WINDOW_CLOSED,
  FiscalAuthority,
  type FiscalDocument,
  INVOICE_CANCELLED,
  INVOICE_REVERSED,
} from '../invoicing/fiscal-authority';
import { invoicingConfig, type InvoicingConfig } from '../invoicing/invoicing.config';

export interface ReverseInvoiceInput {
  checkoutId: string;
  /** The refund's key: the cancel and the return note each derive theirs from it. */
  idempotencyKey: string;
  reason: string;
}

export type ReversalOutcome =
  | { outcome: 'cancelled' | 'reversed'; invoice: InvoiceRow; isNew: boolean }
  | { outcome: 'no-invoice' }
  | { outcome: 'refused'; reason: string };

/**
 * What a refund does to the checkout's invoice, by the clock: inside the authority's window it
 * cancels it; after it, or when the authority refuses the cancel as late, a return note reverses
 * it. Each under a key of its own derived from the refund's, so an attempt that timed out after
 * its effect is answered the same on the next. When the authority says the invoice is already
 * reversed the other way (a cancel that timed out, then a return note asked after the window), it
 * is recorded as the authority has it, the return note found by querying what it filed under the
 * checkout.
 */
@Injectable()
export class ReverseInvoice {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly authority: FiscalAuthority,
    @Inject(invoicingConfig.KEY) private readonly config: InvoicingConfig,
  ) {}

  async execute({ checkoutId, idempotencyKey, reason }: ReverseInvoiceInput): Promise<ReversalOutcome> {
    const invoice = await this.invoices.lockByCheckout(checkoutId);
    const decision = decideReversal(invoice && toInvoiceState(invoice), new Date(), this.config.cancelWindowMs);
    switch (decision.kind) {
      case 'no-invoice':
        return { outcome: 'no-invoice' };
      case 'already':
        return { outcome: decision.status === 'cancelled' ? 'cancelled' : 'reversed', invoice: invoice!, isNew: false };
      case 'cancel': {
        const response = await this.authority.cancelInvoice(`${idempotencyKey}:cancel`, invoice!.invoice_id, reason);
        if (response.authorized) return this.record(invoice!, null);
        if (response.reason === INVOICE_REVERSED) return this.record(invoice!, await this.returnNoteOf(invoice!));
        if (response.reason !== CANCEL_WINDOW_CLOSED) return { outcome: 'refused', reason: response.reason };
        return this.returnNote(invoice!, idempotencyKey, reason);
      }
      case 'return-note':
        return this.returnNote(invoice!, idempotencyKey, reason);
    }
  }

  private async returnNote(invoice: InvoiceRow, idempotencyKey: string, reason: string): Promise<ReversalOutcome> {
    const response = await this.authority.issueReturnNote(`${idempotencyKey}:return-note`, invoice.invoice_id, reason);
    if (response.authorized) return this.record(invoice, response.returnNote);
    if (response.reason === INVOICE_CANCELLED) return this.record(invoice, null);
    return { outcome: 'refused', reason: response.reason };
  }

  /** The return note the authority filed against the invoice; a look-up that goes unanswered throws. */
  private async returnNoteOf(invoice: InvoiceRow): Promise<FiscalDocument> {
    const documents = await this.authority.documentsFiledUnder(invoice.checkout_id);
    const note = documents.find((each) => each.kind === 'return-note' && each.invoiceId === invoice.invoice_id);
    if (!note) throw new Error(`the authority says ${invoice.invoice_id} is reversed, and lists no return note for it`);
    return note;
  }

  private async record(invoice: InvoiceRow, returnNote: FiscalDocument | null): Promise<ReversalOutcome> {
    const reversed = await this.invoices.reverse(invoice, returnNote);
    return { outcome: returnNote ? 'reversed' : 'cancelled', invoice: reversed, isNew: true };
  }
}
