import type {
  CancellationResponse,
  FiscalDocument,
  ReturnNoteResponse,
} from '../../../src/modules/billing/invoicing/fiscal-authority';

export type { CancellationResponse, FiscalDocument, ReturnNoteResponse };
export {
  CANCEL_WINDOW_CLOSED,
  INVOICE_CANCELLED,
  INVOICE_REVERSED,
} from '../../../src/modules/billing/invoicing/fiscal-authority';

/** The checkout's invoice as billing recorded it, still standing (neither cancelled nor reversed, by our records). */
export interface IssuedInvoice {
  checkoutId: string;
  /** The authority's id of the invoice. */
  invoiceId: string;
  /** When the authority authorised it, by the authority's clock: its cancel window runs from here. */
  authorizedAt: Date;
}

/**
 * The fiscal authority, about this one invoice, as this refund reaches it. Every attempt of the
 * refund's reversal asks under the same keys (one for the cancel, one for the return note), so a
 * call asked again is answered as the first time, and never makes a second document. Each call
 * throws when the authority did not answer (a timeout, a 503): then what it did is not known.
 */
export interface AuthorityForReversal {
  /**
   * Cancels the invoice: authorised, or refused with a reason: `CANCEL_WINDOW_CLOSED` (its window
   * has closed, by the authority's clock), `INVOICE_REVERSED` (a return note reverses it already).
   * An invoice cancelled already is answered as authorised.
   */
  cancel(): Promise<CancellationResponse>;
  /**
   * Issues the return note that reverses the invoice, at any time: authorised (the note; the one
   * already issued, if there is one), or refused: `INVOICE_CANCELLED` (it is cancelled already).
   */
  issueReturnNote(): Promise<ReturnNoteResponse>;
  /** Every document the authority filed under the checkout (the invoice, a return note). */
  documentsFiledUnder(): Promise<FiscalDocument[]>;
}

/** How the invoice ended up reversed at the authority: cancelled, or by this return note. */
export type Reversal = { by: 'cancel' } | { by: 'return-note'; returnNote: FiscalDocument };

/**
 * Exercise 17: time-bound compensation. What starter.ts, solution.ts and every wrong-*.ts export.
 */
export interface TimeBoundCompensation {
  /**
   * A refund's reversal of the checkout's invoice. `now` is billing's clock (use it, not
   * `Date.now()`); `windowMs` is how long after its authorisation the authority cancels an
   * invoice, as billing is told (`INVOICE_CANCEL_WINDOW_SECONDS`).
   *
   * Resolve with how the authority reversed it, and billing records the invoice so (cancelled, or
   * reversed by that return note) and announces it, once: a later copy of the refund finds it
   * recorded and asks nothing. Throw, and the reversal has not happened: the refund's delivery is
   * tried again (your answer is called again, with a later `now`), and after its last attempt it
   * waits for a person as a dead letter.
   */
  reverseInvoice(
    invoice: IssuedInvoice,
    authority: AuthorityForReversal,
    clock: { now: Date; windowMs: number },
  ): Promise<Reversal>;
}
