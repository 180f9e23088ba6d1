import type { AuthorityForReversal, IssuedInvoice, Reversal } from './exercise';

/**
 * The refund's reversal as first written: a refund undoes the sale, so the invoice is cancelled.
 * Run `npm run exercise -- 17`: the authority cancels an invoice only within its window.
 *
 * TODO: reverse the invoice the way the authority still allows, by the clock: a cancel inside the
 * window, a return note after it; and make sure every refund ends with the invoice reversed once,
 * even when the window closes on the way, and when the refund is delivered again.
 */
export async function reverseInvoice(
  invoice: IssuedInvoice,
  authority: AuthorityForReversal,
  _clock: { now: Date; windowMs: number },
): Promise<Reversal> {
  const response = await authority.cancel();
  if (!response.authorized) throw new Error(`The authority refused to cancel ${invoice.invoiceId}: ${response.reason}`);
  return { by: 'cancel' };
}
