import type { Entitlement, GrantDecision, RevokeDecision } from './exercise';

/**
 * A plausible wrong answer: the revoke leaves a tombstone, but the grant never looks at it. It
 * treats a revoked checkout as one that may be granted again ("the buyer came back"), so the late
 * grant brings the access back to life.
 */
export function decideGrant(existing: Entitlement | undefined): GrantDecision {
  if (existing?.status === 'active') return { kind: 'already-granted' };
  return { kind: 'grant' };
}

export function decideRevoke(existing: Entitlement | undefined): RevokeDecision {
  if (!existing) return { kind: 'leave-a-tombstone' };
  if (existing.status === 'revoked') return { kind: 'nothing-to-do' };
  return { kind: 'revoke' };
}
