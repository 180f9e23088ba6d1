/**
 * The invoice of a checkout, one at most, as billing keeps it:
 *
 *   (none) --issue--> issued
 *   issued --a refund, inside the cancel window--> cancelled
 *   issued --a refund, after it (or a cancel refused as late)--> reversed (by a return note)
 *
 * An invoice is issued after the capture and never undone by a technical failure: the authority
 * may be down for hours, and the step waits for it. What a refund does to it depends on the
 * clock: the authority cancels an invoice only within its window; after it, a return note (a
 * document of its own that reverses the sale) is the only way back.
 */
export type InvoiceStatus = 'issued' | 'cancelled' | 'reversed';

export interface InvoiceState {
  status: InvoiceStatus;
  /** When the authority authorised it: the cancel window runs from here. */
  authorizedAt: Date;
}

export type IssueDecision = { kind: 'issue' } | { kind: 'already'; status: InvoiceStatus };

export function decideIssue(invoice: InvoiceState | undefined): IssueDecision {
  return invoice ? { kind: 'already', status: invoice.status } : { kind: 'issue' };
}

export type ReversalDecision =
  | { kind: 'cancel' }
  | { kind: 'return-note' }
  | { kind: 'already'; status: Exclude<InvoiceStatus, 'issued'> }
  | { kind: 'no-invoice' };

/**
 * How a refund reverses the invoice at `now`. A cancel is asked for only while a margin of the
 * window is left (a tenth of it, at most five minutes): the request takes time, and the
 * authority's clock is not ours. Later, a return note; and a cancel the authority refuses as late
 * is followed by a return note too (the use case's part).
 */
export function decideReversal(invoice: InvoiceState | undefined, now: Date, windowMs: number): ReversalDecision {
  if (!invoice) return { kind: 'no-invoice' };
  if (invoice.status !== 'issued') return { kind: 'already', status: invoice.status };
  const closesAt = invoice.authorizedAt.getTime() + windowMs - cancelMarginMs(windowMs);
  return now.getTime() < closesAt ? { kind: 'cancel' } : { kind: 'return-note' };
}

/** What is kept of the window for the cancel's way there: a tenth of it, at most five minutes. */
export const cancelMarginMs = (windowMs: number): number => Math.min(windowMs / 10, 5 * 60_000);
