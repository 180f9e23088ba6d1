import { accessFrom, decideActivate, decideGrant, decideRevoke, type License, mayWatch } from './entitlement';

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

  it('when access was granted provisionally for the checkout, then granting again changes nothing', () => {
    expect(decideGrant({ status: 'provisional', tombstone: false }, premium, 'PT')).toEqual({
      kind: 'already-granted',
    });
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

  it('when revoking a provisional grant (the capture was declined), then it is revoked like an active one', () => {
    expect(decideRevoke({ status: 'provisional', tombstone: false })).toEqual({ kind: 'revoke' });
  });
});

describe('activating a provisional grant, once the money is captured', () => {
  it('when the grant is provisional, then it becomes active', () => {
    expect(decideActivate({ status: 'provisional', tombstone: false })).toEqual({ kind: 'activate' });
  });

  it('when the grant is already active (a repeated capture announcement), then nothing changes', () => {
    expect(decideActivate({ status: 'active', tombstone: false })).toEqual({ kind: 'already-active' });
  });

  it('when there is no grant, or it was revoked or never made (a tombstone), then it cannot be activated', () => {
    expect(decideActivate(undefined)).toEqual({ kind: 'impossible', reason: 'not-granted' });
    expect(decideActivate({ status: 'revoked', tombstone: false })).toEqual({ kind: 'impossible', reason: 'revoked' });
    expect(decideActivate({ status: 'revoked', tombstone: true })).toEqual({ kind: 'impossible', reason: 'revoked' });
  });
});

describe('what a reader of access may conclude', () => {
  it('when the buyer holds only a provisional grant, then it is shown as provisional and does not let them use the plan', () => {
    expect(accessFrom(['provisional'])).toBe('provisional');
    expect(mayWatch(accessFrom(['provisional']))).toBe(false);
  });

  it("when any of the buyer's grants to the plan is active, then they may watch it", () => {
    expect(accessFrom(['revoked', 'provisional', 'active'])).toBe('active');
    expect(mayWatch(accessFrom(['revoked', 'active']))).toBe(true);
  });

  it('when every grant was revoked, or there is none, then there is no access', () => {
    expect(accessFrom(['revoked', 'revoked'])).toBe('none');
    expect(accessFrom([])).toBe('none');
    expect(mayWatch('none')).toBe(false);
  });
});
