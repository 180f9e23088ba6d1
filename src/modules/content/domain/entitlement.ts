export type EntitlementStatus = 'active' | 'revoked';

export interface EntitlementState {
  status: EntitlementStatus;
  tombstone: boolean;
}

export interface License {
  everywhere: boolean;
  countries: string[];
}

export type GrantDecision =
  | { kind: 'grant' }
  | { kind: 'already-granted' }
  | { kind: 'refused'; reason: 'not-licensed' | 'revoked-before-grant' | 'unknown-plan' };

/**
 * Access to a plan is granted once per checkout, only where the plan is licensed, and never after
 * the checkout's access was revoked (or revoked before it was granted: a tombstone).
 */
export function decideGrant(
  existing: EntitlementState | undefined,
  license: License | undefined,
  country: string,
): GrantDecision {
  if (existing?.status === 'active') return { kind: 'already-granted' };
  if (existing) return { kind: 'refused', reason: 'revoked-before-grant' };
  if (!license) return { kind: 'refused', reason: 'unknown-plan' };
  if (!license.everywhere && !license.countries.includes(country.toUpperCase())) {
    return { kind: 'refused', reason: 'not-licensed' };
  }
  return { kind: 'grant' };
}

export type RevokeDecision = { kind: 'revoke' } | { kind: 'tombstone' } | { kind: 'already-revoked' };

/** Revoking accepts "never granted" as success, and leaves a tombstone so that it stays so. */
export function decideRevoke(existing: EntitlementState | undefined): RevokeDecision {
  if (!existing) return { kind: 'tombstone' };
  return existing.status === 'active' ? { kind: 'revoke' } : { kind: 'already-revoked' };
}
