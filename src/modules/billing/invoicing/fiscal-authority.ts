/**
 * The fiscal authority (the tax office that authorises invoices, as a SEFAZ does), as billing sees
 * it: every call carries an idempotency key, and the same key always gets the same response
 * without a second document. An authorised invoice can be cancelled only within the authority's
 * window; after it, a return note (a document of its own, which reverses the sale) stands in for
 * the cancellation. The app reaches the authority service over HTTP (HttpFiscalAuthority), through
 * callOutside('fiscal-authority', ...): an authority that does not answer spends attempts, and is
 * never read as a refusal.
 */

export interface InvoiceRequest {
  /** The merchant's reference (the checkout): every document about it is filed under it. */
  reference: string;
  /** Who bought (the buyer's id), and what (the plan). */
  buyer: string;
  description: string;
  amountCents: number;
  currency: string;
}

/** A document the authority authorised: an invoice, or a return note that reverses one. */
export interface FiscalDocument {
  kind: 'invoice' | 'return-note';
  id: string;
  /** The number the authority gave it, as printed on it. */
  number: string;
  reference: string;
  /** When the authority authorised it (ISO 8601): an invoice's cancel window runs from here. */
  authorizedAt: string;
  /** For an invoice: when it was cancelled, if it was. */
  cancelledAt: string | null;
  /** For a return note: the invoice it reverses. */
  invoiceId: string | null;
}

/** The authority said no, and why: a definitive answer, kept under the key as any answer is. */
export interface Refusal {
  authorized: false;
  reason: string;
}

export type InvoiceResponse = { authorized: true; invoice: FiscalDocument } | Refusal;
export type CancellationResponse = { authorized: true; invoice: FiscalDocument } | Refusal;
export type ReturnNoteResponse = { authorized: true; returnNote: FiscalDocument } | Refusal;

/** The authority refuses a cancellation once the invoice's window has closed: a return note is the way then. */
export const CANCEL_WINDOW_CLOSED = 'cancel-window-closed';
/** The authority has no invoice by that id. */
export const UNKNOWN_INVOICE = 'unknown-invoice';
/** A return note was refused: the invoice is cancelled already. */
export const INVOICE_CANCELLED = 'invoice-cancelled';
/** A cancel was refused: a return note reverses the invoice already. */
export const INVOICE_REVERSED = 'invoice-reversed';

export abstract class FiscalAuthority {
  /** Asks for an invoice; under a key already answered, the same invoice comes back. */
  abstract issueInvoice(key: string, request: InvoiceRequest): Promise<InvoiceResponse>;
  /** Cancels an invoice, within the window; a cancelled one answers with itself, as cancelled. */
  abstract cancelInvoice(key: string, invoiceId: string, reason: string): Promise<CancellationResponse>;
  /** Issues a return note that reverses an invoice (after its window, or whenever a cancel is refused). */
  abstract issueReturnNote(key: string, invoiceId: string, reason: string): Promise<ReturnNoteResponse>;
  /** Every document authorised under a reference. An answer, or a throw: never "none" for no answer. */
  abstract documentsFiledUnder(reference: string): Promise<FiscalDocument[]>;
}
