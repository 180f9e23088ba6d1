import type { FiscalDocument } from '../invoicing/fiscal-authority';

/** The invoices of one reference (a checkout) at the fiscal authority, from the documents it authorised under it. */
export interface FiledInvoices {
  /** Invoices authorised, cancelled or not: a second one shows as a 2. */
  invoices: number;
  /** Invoices that still stand: neither cancelled nor reversed by a return note. */
  standing: number;
}

/** Counts the invoices in the authority's listing of a reference, as the invariants count them. */
export function invoicesIn(documents: readonly FiscalDocument[]): FiledInvoices {
  const invoices = documents.filter((document) => document.kind === 'invoice');
  const reversed = new Set(
    documents.filter((document) => document.kind === 'return-note').map((document) => document.invoiceId),
  );
  const standing = invoices.filter((invoice) => invoice.cancelledAt === null && !reversed.has(invoice.id));
  return { invoices: invoices.length, standing: standing.length };
}
