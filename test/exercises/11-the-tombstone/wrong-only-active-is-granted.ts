import type { Entitlement, GrantDecision, RevokeDecision } from './exercise';

/**
 * A learner's words: "No row: grant. An active row: already done. Any other row means the
 * checkout was revoked, so the grant refuses. And the revoke leaves a tombstone when it finds
 * nothing."
 *
 * What it gets wrong: "any other row" includes this checkout's own provisional grant (access
 * waits for the capture). When content's answer is lost and the saga asks again, the second ask
 * finds the grant the first one made and refuses it: the saga undoes a checkout that was selling.
 */
export function decideGrant(existing: Entitlement | undefined): GrantDecision {
  if (!existing) return { kind: 'grant' };
  if (existing.status === 'active') return { kind: 'already-granted' };
  return { kind: 'refuse', reason: 'revoked-before-grant' };
}

export function decideRevoke(existing: Entitlement | undefined): RevokeDecision {
  if (!existing) return { kind: 'leave-a-tombstone' };
  if (existing.status === 'revoked') return { kind: 'nothing-to-do' };
  return { kind: 'revoke' };
}
