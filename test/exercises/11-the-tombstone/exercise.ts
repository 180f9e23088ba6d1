/**
 * Exercise 11: the tombstone. What starter.ts, solution.ts and every wrong-*.ts export: content's
 * two decisions about a checkout's access (compare src/modules/content/domain/entitlement.ts).
 */

/** What content holds for a checkout: one row at most. */
export interface Entitlement {
  /** `active` (or `provisional`, where access waits for the capture), or `revoked`. */
  status: string;
  /** The row was written by a revoke that found nothing to revoke. */
  tombstone: boolean;
}

export type GrantDecision =
  /** Give the buyer access (a new row, or the existing one made active again). */
  | { kind: 'grant' }
  /** Access is already there: answer "granted" and change nothing. */
  | { kind: 'already-granted' }
  /** Answer "refused" and change nothing. */
  | { kind: 'refuse'; reason: string };

export type RevokeDecision =
  /** Take back the access there is. */
  | { kind: 'revoke' }
  /** Nothing to take back: write a row that says this checkout's access was revoked. */
  | { kind: 'leave-a-tombstone' }
  /** Answer "revoked" and change nothing. */
  | { kind: 'nothing-to-do' };

export interface TheTombstone {
  /** The saga asks content to grant access; `existing` is what content holds for the checkout, if anything. */
  decideGrant(existing: Entitlement | undefined): GrantDecision;
  /** The saga asks content to take access back (it is undoing the checkout). */
  decideRevoke(existing: Entitlement | undefined): RevokeDecision;
}
