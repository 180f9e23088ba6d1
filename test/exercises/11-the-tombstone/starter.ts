import type { Entitlement, GrantDecision, RevokeDecision } from './exercise';

/**
 * Content as first written: grant unless access is already active; revoke what is there, and when
 * there is nothing, there is nothing to do. Run `npm run exercise -- 11`: the revoke arrives first.
 *
 * TODO: make the two decisions such that a grant that arrives after the revoke of the same
 * checkout never gives access, whichever of the two arrives first.
 */
export function decideGrant(existing: Entitlement | undefined): GrantDecision {
  if (existing?.status === 'active') return { kind: 'already-granted' };
  return { kind: 'grant' };
}

export function decideRevoke(existing: Entitlement | undefined): RevokeDecision {
  if (!existing) return { kind: 'nothing-to-do' };
  return { kind: 'revoke' };
}
