import type { AuthorityForReversal, IssuedInvoice, Reversal } from './exercise';

/**
 * A learner's words: "The window is known: authorised at `authorizedAt`, cancellable for
 * `windowMs`. Before its end I cancel, after it I issue a return note. If the authority refuses,
 * that is its problem, not a reversal: I fail, and the refund is tried again."
 *
 * What it gets wrong: the window is the authority's, by its clock, when the request arrives; our
 * clock, when it leaves, is another. A cancel that leaves in the last moment, or from a clock
 * behind the authority's, is refused as late, and every attempt after it asks for the same cancel
 * while our clock still says "inside": the refund ends as a dead letter, the sale not reversed.
 */
export async function reverseInvoice(
  invoice: IssuedInvoice,
  authority: AuthorityForReversal,
  { now, windowMs }: { now: Date; windowMs: number },
): Promise<Reversal> {
  if (now.getTime() < invoice.authorizedAt.getTime() + windowMs) {
    const response = await authority.cancel();
    if (!response.authorized)
      throw new Error(`The authority refused to cancel ${invoice.invoiceId}: ${response.reason}`);
    return { by: 'cancel' };
  }
  const response = await authority.issueReturnNote();
  if (!response.authorized) throw new Error(`No return note for ${invoice.invoiceId}: ${response.reason}`);
  return { by: 'return-note', returnNote: response.returnNote };
}
