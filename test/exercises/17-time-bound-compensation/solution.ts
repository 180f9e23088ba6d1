import {
  type AuthorityForReversal,
  CANCEL_WINDOW_CLOSED,
  INVOICE_CANCELLED,
  INVOICE_REVERSED,
  type IssuedInvoice,
  type Reversal,
} from './exercise';

/** What is kept of the window for the cancel's way there (the product's cancelMarginMs): a tenth, at most 5 min. */
const marginMs = (windowMs: number): number => Math.min(windowMs / 10, 5 * 60_000);

/**
 * A refund compensates the invoice in one of two ways, and the clock picks: a cancel while the
 * authority still cancels (with a margin kept for the request's way there, and for a clock that
 * is not the authority's), a return note after. Our clock decides first; the authority's word
 * decides last: a cancel refused as late is followed by a return note.
 *
 * Every attempt asks under the same keys, and reads the authority's answer as the truth about
 * what an earlier attempt did: a return note refused because the invoice is cancelled (a cancel
 * whose answer was lost) is the reversal, done; so is a cancel refused because a return note
 * reverses the invoice already (found with a look-up). Anything else refused is let through.
 */
export async function reverseInvoice(
  invoice: IssuedInvoice,
  authority: AuthorityForReversal,
  { now, windowMs }: { now: Date; windowMs: number },
): Promise<Reversal> {
  const cancelUntil = invoice.authorizedAt.getTime() + windowMs - marginMs(windowMs);
  if (now.getTime() < cancelUntil) {
    const cancelled = await authority.cancel();
    if (cancelled.authorized) return { by: 'cancel' };
    if (cancelled.reason === INVOICE_REVERSED)
      return { by: 'return-note', returnNote: await returnNoteOf(invoice, authority) };
    if (cancelled.reason !== CANCEL_WINDOW_CLOSED) {
      throw new Error(`The authority refused to cancel ${invoice.invoiceId}: ${cancelled.reason}`);
    }
  }
  const noted = await authority.issueReturnNote();
  if (noted.authorized) return { by: 'return-note', returnNote: noted.returnNote };
  if (noted.reason === INVOICE_CANCELLED) return { by: 'cancel' };
  throw new Error(`The authority refused a return note for ${invoice.invoiceId}: ${noted.reason}`);
}

/** The return note the authority filed against the invoice; none listed is a failure, to be tried again. */
async function returnNoteOf(invoice: IssuedInvoice, authority: AuthorityForReversal) {
  const documents = await authority.documentsFiledUnder();
  const note = documents.find((each) => each.kind === 'return-note' && each.invoiceId === invoice.invoiceId);
  if (!note) throw new Error(`The authority says ${invoice.invoiceId} is reversed, and lists no return note for it`);
  return note;
}
