import { decideAuthorize, decideCapture, decideRefund, decideVoid, type PaymentState } from './payment';

const payment = (status: PaymentState['status'], tombstone = false): PaymentState => ({ status, tombstone });

describe('the payment decisions', () => {
  it('when nothing exists, then authorize authorizes and void leaves a tombstone', () => {
    expect(decideAuthorize(undefined)).toEqual({ kind: 'authorize' });
    expect(decideVoid(undefined)).toEqual({ kind: 'tombstone' });
  });

  it('when a tombstone exists, then a late authorization is refused', () => {
    expect(decideAuthorize(payment('voided', true))).toEqual({ kind: 'refused' });
  });

  it('when the payment already exists, then authorizing again reports it and does nothing new', () => {
    expect(decideAuthorize(payment('authorized'))).toEqual({ kind: 'already', status: 'authorized' });
    expect(decideAuthorize(payment('declined'))).toEqual({ kind: 'already', status: 'declined' });
  });

  it('when authorized, then it can be captured or voided, once', () => {
    expect(decideCapture(payment('authorized'))).toEqual({ kind: 'capture' });
    expect(decideCapture(payment('captured'))).toEqual({ kind: 'already-captured' });
    expect(decideVoid(payment('authorized'))).toEqual({ kind: 'void' });
    expect(decideVoid(payment('voided'))).toEqual({ kind: 'nothing-to-void' });
  });

  it('when captured, then it is never voided, only refunded, once', () => {
    expect(decideVoid(payment('captured'))).toEqual({ kind: 'already-captured' });
    expect(decideRefund(payment('captured'))).toEqual({ kind: 'refund' });
    expect(decideRefund(payment('refunded'))).toEqual({ kind: 'already-refunded' });
    expect(decideRefund(payment('authorized'))).toEqual({ kind: 'not-refundable' });
  });

  it('when declined or voided, then there is nothing to capture', () => {
    expect(decideCapture(payment('declined'))).toEqual({ kind: 'not-capturable' });
    expect(decideCapture(payment('voided'))).toEqual({ kind: 'not-capturable' });
    expect(decideCapture(undefined)).toEqual({ kind: 'not-capturable' });
  });
});
