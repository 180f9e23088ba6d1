import type { Entitlement, GrantDecision, RevokeDecision } from './exercise';

/**
 * A learner's words: "A revoke that finds nothing leaves a tombstone, and the grant reads it: a
 * tombstone means the checkout was undone, so the grant refuses. Any other row is this checkout's
 * own access: already granted, or to be granted again."
 *
 * What it gets wrong: the tombstone is one way of saying "revoked", not the only one. When the
 * revoke found the access and took it back, the row is revoked without being a tombstone, and a
 * late copy of the grant (the saga asked twice) brings the access back to life for a checkout
 * that did not sell.
 */
export function decideGrant(existing: Entitlement | undefined): GrantDecision {
  if (existing?.tombstone) return { kind: 'refuse', reason: 'revoked-before-grant' };
  if (existing && existing.status !== 'revoked') return { kind: 'already-granted' };
  return { kind: 'grant' };
}

export function decideRevoke(existing: Entitlement | undefined): RevokeDecision {
  if (!existing) return { kind: 'leave-a-tombstone' };
  if (existing.status === 'revoked') return { kind: 'nothing-to-do' };
  return { kind: 'revoke' };
}
