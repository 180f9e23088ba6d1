import type { Entitlement, GrantDecision, RevokeDecision } from './exercise';

/**
 * A revoke accepts "never granted" as success, and says so durably: it leaves a tombstone. A grant
 * that finds the checkout revoked (by a tombstone or a real revoke) refuses: the saga that asked
 * for it has already given up on it and undone it.
 */
export function decideGrant(existing: Entitlement | undefined): GrantDecision {
  if (!existing) return { kind: 'grant' };
  if (existing.status === 'revoked') return { kind: 'refuse', reason: 'revoked-before-grant' };
  return { kind: 'already-granted' };
}

export function decideRevoke(existing: Entitlement | undefined): RevokeDecision {
  if (!existing) return { kind: 'leave-a-tombstone' };
  if (existing.status === 'revoked') return { kind: 'nothing-to-do' };
  return { kind: 'revoke' };
}
