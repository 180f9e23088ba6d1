import { decideGrant, decideRevoke, type License } from './entitlement';

const everywhere: License = { everywhere: true, countries: [] };
const premium: License = { everywhere: false, countries: ['BR', 'PT', 'US'] };

describe('the entitlement decisions', () => {
  it("when the plan is licensed in the buyer's country, or everywhere, then access is granted", () => {
    expect(decideGrant(undefined, premium, 'PT')).toEqual({ kind: 'grant' });
    expect(decideGrant(undefined, everywhere, 'JP')).toEqual({ kind: 'grant' });
  });

  it("when the plan is not licensed in the buyer's country, then access is refused as a business outcome", () => {
    expect(decideGrant(undefined, premium, 'JP')).toEqual({ kind: 'refused', reason: 'not-licensed' });
  });

  it('when access was already granted for the checkout, then granting again changes nothing', () => {
    expect(decideGrant({ status: 'active', tombstone: false }, premium, 'PT')).toEqual({ kind: 'already-granted' });
  });

  it('when access was revoked first (a tombstone), then a late grant is refused', () => {
    expect(decideGrant({ status: 'revoked', tombstone: true }, everywhere, 'PT')).toEqual({
      kind: 'refused',
      reason: 'revoked-before-grant',
    });
  });

  it('when revoking, then never-granted leaves a tombstone and revoking twice changes nothing', () => {
    expect(decideRevoke(undefined)).toEqual({ kind: 'tombstone' });
    expect(decideRevoke({ status: 'active', tombstone: false })).toEqual({ kind: 'revoke' });
    expect(decideRevoke({ status: 'revoked', tombstone: false })).toEqual({ kind: 'already-revoked' });
  });
});
