import { type AuthorityForReversal, CANCEL_WINDOW_CLOSED, type IssuedInvoice, type Reversal } from './exercise';

const marginMs = (windowMs: number): number => Math.min(windowMs / 10, 5 * 60_000);

/**
 * A learner's words: "By the clock, with a margin: a cancel inside the window, a return note after
 * it, and a return note when the cancel is refused as late. Any other refusal is something I did
 * not expect: I fail, and the refund is tried again."
 *
 * What it gets wrong: each attempt decides afresh, as if it were the first. When the first
 * attempt's cancel was made but its answer was lost, the refund is delivered again after the
 * window: the clock now says "return note", and the authority refuses it because the invoice is
 * cancelled, which is the reversal this refund already made. Read as a failure, it is tried again
 * until it is a dead letter, and billing never records the cancel the authority has.
 */
export async function reverseInvoice(
  invoice: IssuedInvoice,
  authority: AuthorityForReversal,
  { now, windowMs }: { now: Date; windowMs: number },
): Promise<Reversal> {
  if (now.getTime() < invoice.authorizedAt.getTime() + windowMs - marginMs(windowMs)) {
    const cancelled = await authority.cancel();
    if (cancelled.authorized) return { by: 'cancel' };
    if (cancelled.reason !== CANCEL_WINDOW_CLOSED) {
      throw new Error(`The authority refused to cancel ${invoice.invoiceId}: ${cancelled.reason}`);
    }
  }
  const noted = await authority.issueReturnNote();
  if (!noted.authorized) throw new Error(`No return note for ${invoice.invoiceId}: ${noted.reason}`);
  return { by: 'return-note', returnNote: noted.returnNote };
}
