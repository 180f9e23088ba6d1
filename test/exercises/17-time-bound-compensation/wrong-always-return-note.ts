import type { AuthorityForReversal, IssuedInvoice, Reversal } from './exercise';

/**
 * A learner's words: "A cancel works only inside the window, and a return note works always. Why
 * keep two paths and a clock? Every refund gets a return note, and the sale is reversed."
 *
 * What it gets wrong: a return note is a document of its own, filed against the sale for good,
 * where a cancel inside the window leaves the invoice as if it had never counted. The authority
 * offers the cancel for the first hours for a reason: inside the window the lesson's compensation
 * is the cancel, and a return note there is a second document where none was needed.
 */
export async function reverseInvoice(
  invoice: IssuedInvoice,
  authority: AuthorityForReversal,
  _clock: { now: Date; windowMs: number },
): Promise<Reversal> {
  const response = await authority.issueReturnNote();
  if (!response.authorized) throw new Error(`No return note for ${invoice.invoiceId}: ${response.reason}`);
  return { by: 'return-note', returnNote: response.returnNote };
}
