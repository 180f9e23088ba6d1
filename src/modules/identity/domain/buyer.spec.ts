import { verifyBuyer } from './buyer';

describe('verifyBuyer', () => {
  it('when the user does not exist, then it is rejected as unknown', () => {
    expect(verifyBuyer(undefined)).toEqual({ verified: false, reason: 'unknown-user' });
  });

  it('when the user is blocked, then it is rejected as blocked', () => {
    expect(verifyBuyer({ status: 'blocked', country: 'PT' })).toEqual({ verified: false, reason: 'user-blocked' });
  });

  it('when the user is active, then it is verified with its country', () => {
    expect(verifyBuyer({ status: 'active', country: 'BR' })).toEqual({ verified: true, country: 'BR' });
  });
});
