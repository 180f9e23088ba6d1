/** What the authority does, each under the caller's idempotency key. */
export const OPERATIONS = ['invoice', 'cancellation', 'return-note'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** What every document has: its id, the number printed on it, its reference, and when it was authorised (ISO 8601, by the database's clock). */
interface Authorised {
  id: string;
  number: string;
  reference: string;
  authorizedAt: string;
}

/**
 * A document the authority authorised, one shape per kind: an invoice (cancelled, perhaps, within
 * its window), or a return note that reverses one and is never cancelled itself. On the wire both
 * carry `cancelledAt` and `invoiceId`, null where they say nothing.
 */
export type FiscalDocument =
  | (Authorised & { kind: 'invoice'; cancelledAt: string | null; invoiceId: null })
  | (Authorised & { kind: 'return-note'; cancelledAt: null; invoiceId: string });

export type AuthorityResponse =
  | { authorized: true; invoice: FiscalDocument }
  | { authorized: true; returnNote: FiscalDocument }
  | { authorized: false; reason: string };

/** No invoice by that id: not remembered under the key, as nothing was decided about one. */
export const UNKNOWN_INVOICE = 'unknown-invoice';
export const CANCEL_WINDOW_CLOSED = 'cancel-window-closed';
/** A return note already reverses the invoice: it is not cancelled as well. */
export const INVOICE_REVERSED = 'invoice-reversed';
/** A cancelled invoice is not reversed again by a return note. */
export const INVOICE_CANCELLED = 'invoice-cancelled';

/** An invoice as a cancellation or a return note finds it. */
export interface InvoiceOnFile {
  invoice: FiscalDocument;
  /** Whether the database's clock is still within the invoice's cancel window. */
  withinWindow: boolean;
  /** The return note that reverses it, if one does. */
  returnNote: FiscalDocument | undefined;
}

/** Why a cancellation of this invoice is refused, if it is (a cancelled one answers with itself). */
export function cancellationRefusal({ invoice, withinWindow, returnNote }: InvoiceOnFile): string | undefined {
  if (invoice.cancelledAt) return undefined;
  if (returnNote) return INVOICE_REVERSED;
  if (!withinWindow) return CANCEL_WINDOW_CLOSED;
  return undefined;
}

/** Why a return note on this invoice is refused, if it is (one that has a return note answers with it). */
export const returnNoteRefusal = ({ invoice }: InvoiceOnFile): string | undefined =>
  invoice.cancelledAt ? INVOICE_CANCELLED : undefined;
