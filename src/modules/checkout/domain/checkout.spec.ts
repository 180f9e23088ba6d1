import { advance as advanceAlong, type CheckoutProgress, type ProgressFact } from './checkout';

const ORDER = [
  'identity.verify-user',
  'billing.authorize-payment',
  'content.grant-access',
  'billing.capture-payment',
  'content.activate-access',
  'notifications.send-welcome-email',
  'content.revoke-access',
  'billing.void-authorization',
];
const advance = (current: CheckoutProgress, fact: ProgressFact) => advanceAlong(current, fact, ORDER);

const pending = (step: CheckoutProgress['step'] = 'identity.verify-user'): CheckoutProgress => ({
  status: 'PENDING',
  step,
  failureReason: null,
});

describe('advance', () => {
  it('when a step is reached, then the checkout moves to it', () => {
    expect(advance(pending(), { kind: 'reached', step: 'billing.authorize-payment' })).toEqual(
      pending('billing.authorize-payment'),
    );
  });

  it('when an earlier step is learned late, then nothing moves back', () => {
    expect(
      advance(pending('billing.capture-payment'), { kind: 'reached', step: 'content.grant-access' }),
    ).toBeUndefined();
  });

  it('when compensation starts, then the step is the compensation and the first reason is kept', () => {
    const refused = advance(pending('content.grant-access'), {
      kind: 'compensating',
      step: 'billing.void-authorization',
      reason: 'not-licensed',
    });
    expect(refused).toEqual({ status: 'PENDING', step: 'billing.void-authorization', failureReason: 'not-licensed' });
    expect(advance(refused!, { kind: 'failed', reason: 'other' })).toEqual({
      status: 'FAILED',
      step: 'billing.void-authorization',
      failureReason: 'not-licensed',
    });
  });

  it('when the checkout is final, then no fact changes it', () => {
    const completed: CheckoutProgress = { ...pending('notifications.send-welcome-email'), status: 'COMPLETED' };
    expect(advance(completed, { kind: 'failed', reason: 'late' })).toBeUndefined();
    expect(advance(completed, { kind: 'intervention', reason: 'late' })).toBeUndefined();
  });

  it('when in intervention, then resuming returns it to pending and completing completes it', () => {
    const stuck = advance(pending('notifications.send-welcome-email'), { kind: 'intervention', reason: 'smtp down' })!;
    expect(stuck.status).toBe('INTERVENTION');
    expect(advance(stuck, { kind: 'resumed' })).toEqual(pending('notifications.send-welcome-email'));
    expect(advance(stuck, { kind: 'completed' })?.status).toBe('COMPLETED');
  });

  it('when a fact repeats, then it changes nothing the second time', () => {
    const reached = advance(pending(), { kind: 'reached', step: 'billing.authorize-payment' })!;
    expect(advance(reached, { kind: 'reached', step: 'billing.authorize-payment' })).toBeUndefined();
  });
});
