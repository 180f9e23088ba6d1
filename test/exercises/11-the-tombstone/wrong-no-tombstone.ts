import type { Entitlement, GrantDecision, RevokeDecision } from './exercise';

/**
 * A learner's words: "Check the state first: a grant that finds the checkout revoked refuses. A
 * revoke that finds nothing has nothing to take back, so it does nothing."
 *
 * What it gets wrong: the grant checks for a mark that nobody leaves. When the revoke comes first
 * it finds nothing and writes nothing, so the late grant finds nothing either, and grants.
 */
export function decideGrant(existing: Entitlement | undefined): GrantDecision {
  if (!existing) return { kind: 'grant' };
  if (existing.status === 'revoked') return { kind: 'refuse', reason: 'revoked-before-grant' };
  return { kind: 'already-granted' };
}

export function decideRevoke(existing: Entitlement | undefined): RevokeDecision {
  if (!existing) return { kind: 'nothing-to-do' };
  if (existing.status === 'revoked') return { kind: 'nothing-to-do' };
  return { kind: 'revoke' };
}
