/**
 * `provisional`: granted while the checkout can still be undone (the money is held, not taken): a
 * semantic lock that tells every reader "not yours yet". `active`: the money was taken, the buyer
 * may use the plan. `revoked`: withdrawn, or (a tombstone) refused before it was ever granted.
 */
export type EntitlementStatus = 'provisional' | 'active' | 'revoked';

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
 * the checkout's access was revoked (or revoked before it was granted: a tombstone). A grant is
 * provisional: it becomes active only when the checkout's money is captured (`decideActivate`).
 */
export function decideGrant(
  existing: EntitlementState | undefined,
  license: License | undefined,
  country: string,
): GrantDecision {
  if (existing && existing.status !== 'revoked') return { kind: 'already-granted' };
  if (existing) return { kind: 'refused', reason: 'revoked-before-grant' };
  if (!license) return { kind: 'refused', reason: 'unknown-plan' };
  if (!license.everywhere && !license.countries.includes(country.toUpperCase())) {
    return { kind: 'refused', reason: 'not-licensed' };
  }
  return { kind: 'grant' };
}

export type ActivateDecision =
  { kind: 'activate' } | { kind: 'already-active' } | { kind: 'impossible'; reason: 'not-granted' | 'revoked' };

/**
 * The capture lifts the lock: a provisional grant becomes active, once. There is no business "no"
 * here: the checkout only captures after the grant, and only revokes when it does not capture. A
 * grant missing or revoked when the money was taken is a contradiction for a person to look at.
 */
export function decideActivate(existing: EntitlementState | undefined): ActivateDecision {
  if (!existing) return { kind: 'impossible', reason: 'not-granted' };
  switch (existing.status) {
    case 'provisional':
      return { kind: 'activate' };
    case 'active':
      return { kind: 'already-active' };
    case 'revoked':
      return { kind: 'impossible', reason: 'revoked' };
  }
}

export type RevokeDecision = { kind: 'revoke' } | { kind: 'tombstone' } | { kind: 'already-revoked' };

/**
 * Revoking withdraws a grant, provisional or active; it accepts "never granted" as success, and
 * leaves a tombstone so that it stays so.
 */
export function decideRevoke(existing: EntitlementState | undefined): RevokeDecision {
  if (!existing) return { kind: 'tombstone' };
  return existing.status === 'revoked' ? { kind: 'already-revoked' } : { kind: 'revoke' };
}

/** What a reader may conclude from a buyer's entitlements to one plan. */
export type PlanAccess = 'active' | 'provisional' | 'none';

/**
 * The one rule every reader of access follows: only an active entitlement lets the buyer use the
 * plan. A provisional one is shown as such (the purchase is being confirmed), never as access.
 */
export function accessFrom(statuses: readonly EntitlementStatus[]): PlanAccess {
  if (statuses.includes('active')) return 'active';
  if (statuses.includes('provisional')) return 'provisional';
  return 'none';
}

export const mayWatch = (access: PlanAccess): boolean => access === 'active';
