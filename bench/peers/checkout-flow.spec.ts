import { after } from './checkout-flow';

describe("the peers' checkout flow", () => {
  it('when every step says yes, then the steps follow the pivot rule and the email completes it', () => {
    expect(after('identity.verify-user', { verified: true, country: 'PT' })).toEqual({
      step: 'billing.authorize-payment',
    });
    expect(after('billing.authorize-payment', { outcome: 'authorized', payment: {} as never, isNew: true })).toEqual({
      step: 'content.grant-access',
    });
    expect(after('content.grant-access', { outcome: 'granted', entitlementId: 'e', isNew: true })).toEqual({
      step: 'billing.capture-payment',
    });
    expect(after('billing.capture-payment', { outcome: 'captured', payment: {} as never, isNew: true })).toEqual({
      step: 'content.activate-access',
    });
    const activated = { outcome: 'activated', entitlementId: 'e', userId: 'u', planId: 'p', isNew: true } as const;
    expect(after('content.activate-access', activated)).toEqual({ step: 'billing.issue-invoice' });
    const issued = { outcome: 'issued', invoice: {} as never, buyer: {} as never, isNew: true } as const;
    expect(after('billing.issue-invoice', issued)).toEqual({ step: 'notifications.send-welcome-email' });
    expect(after('notifications.send-welcome-email', { outcome: 'sent', emailId: 'm', isNew: true })).toEqual({
      end: 'COMPLETED',
    });
  });

  it('when the buyer or the card says no, then the checkout ends with nothing to undo', () => {
    expect(after('identity.verify-user', { verified: false, reason: 'user-blocked' })).toEqual({
      end: 'REJECTED',
      reason: 'user-blocked',
    });
    expect(after('billing.authorize-payment', { outcome: 'declined', reason: 'card-declined', isNew: true })).toEqual({
      end: 'FAILED',
      reason: 'card-declined',
    });
  });

  it('when the capture is declined, then the grant is revoked, then the authorization voided, and the reason kept', () => {
    const revoke = after('billing.capture-payment', { outcome: 'declined', reason: 'capture-declined', isNew: true });
    expect(revoke).toEqual({ step: 'content.revoke-access', reason: 'capture-declined' });
    const voiding = after(
      'content.revoke-access',
      { outcome: 'revoked', entitlementId: 'e', isNew: true },
      'capture-declined',
    );
    expect(voiding).toEqual({ step: 'billing.void-authorization', reason: 'capture-declined' });
    expect(after('billing.void-authorization', { outcome: 'voided', isNew: true }, 'capture-declined')).toEqual({
      end: 'FAILED',
      reason: 'capture-declined',
    });
  });

  it('when the grant is refused, then only the authorization is voided', () => {
    expect(after('content.grant-access', { outcome: 'refused', reason: 'not-licensed', isNew: true })).toEqual({
      step: 'billing.void-authorization',
      reason: 'not-licensed',
    });
  });

  it('when the authority refuses the invoice, then a person is asked: the sale stands', () => {
    expect(after('billing.issue-invoice', { outcome: 'refused', reason: 'buyer unknown' })).toEqual({
      end: 'INTERVENTION',
      reason: 'buyer unknown',
    });
  });

  it('when the authorization cannot be voided (its money was taken), then a person is asked', () => {
    expect(
      after('billing.void-authorization', { outcome: 'not-voidable', reason: 'payment is captured' }, 'not-licensed'),
    ).toEqual({ end: 'INTERVENTION', reason: 'not-licensed; payment is captured' });
  });
});
