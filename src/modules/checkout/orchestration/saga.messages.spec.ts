import {
  BillingStepFailed,
  CaptureDeclined,
  InvoiceIssued,
  PaymentAuthorized,
  PaymentCaptured,
  PaymentDeclined,
  PaymentVoided,
} from '../../billing/contracts';
import { AccessActivated, AccessGranted, AccessRefused, AccessRevoked } from '../../content/contracts';
import { BuyerRejected, BuyerVerified } from '../../identity/contracts';
import { WelcomeEmailSent } from '../../notifications/contracts';
import { answered, given, type Heard, SPEC_CHECKOUT as checkout } from './saga.specification';
import type { SagaInput } from './domain/saga';
import { type AnswerPayload, SAGA_ANSWER_TYPES, SAGA_ANSWERS } from './saga-answers';

/**
 * The checkout's saga specified by what it hears and what it sends: given the messages it has
 * had, when one more arrives (or a deadline passes), then these commands leave, and the checkout
 * stands so. Nothing here reads the saga's own fields: the messages come from the checkout's table
 * of steps, as in the running app. Its rules, by inputs and state, are
 * saga.forward.spec.ts, saga.silence.spec.ts and saga.late-answers.spec.ts.
 */

const id = checkout.id;
const started: SagaInput = { type: 'start' };
const deadlinePassed: SagaInput = { type: 'deadline' };
const personRetries: SagaInput = { type: 'retry' };
const failedAt = (step: string, attempt: number, error = 'database down') =>
  answered(BillingStepFailed, { step, error, attempt });

const happyPath: Array<Heard | SagaInput> = [
  started,
  answered(BuyerVerified),
  answered(PaymentAuthorized),
  answered(AccessGranted),
  answered(PaymentCaptured),
  answered(AccessActivated),
  answered(InvoiceIssued),
];

describe('the checkout saga, by its messages', () => {
  it('given a new checkout, when it starts, then it asks identity to verify the buyer under the step key', () => {
    const then = given().when(started);

    expect(then.sent[0].payload).toEqual({
      checkoutId: id,
      idempotencyKey: `${id}:identity.verify-user`,
      attempt: 1,
      userId: checkout.user_id,
    });
    expect(then.sends).toEqual(['identity.verify-user.v1']);
    expect(then.checkout).toEqual({ status: 'PENDING', step: 'identity.verify-user', failureReason: null });
  });

  it('given the buyer verified, then billing is asked to authorize with what the checkout holds', () => {
    const then = given(started).when(answered(BuyerVerified));

    expect(then.sends).toEqual(['billing.authorize-payment.v1']);
    expect(then.sent[0].payload).toEqual({
      checkoutId: id,
      idempotencyKey: `${id}:billing.authorize-payment`,
      attempt: 1,
      userId: checkout.user_id,
      planId: checkout.plan_id,
      paymentMethod: checkout.payment_method,
    });
    expect(then.checkout.step).toBe('billing.authorize-payment');
  });

  it('given every step done but the email, when the email is sent, then nothing more is sent and the checkout is completed', () => {
    const then = given(...happyPath).when(answered(WelcomeEmailSent));

    expect(then.sends).toEqual([]);
    expect(then.checkout).toEqual({
      status: 'COMPLETED',
      step: 'notifications.send-welcome-email',
      failureReason: null,
    });
  });

  it('given a new checkout, when every participant says yes, then the steps are asked in the order of the table', () => {
    const then = given().when(...happyPath, answered(WelcomeEmailSent));

    expect(then.sends).toEqual([
      'identity.verify-user.v1',
      'billing.authorize-payment.v1',
      'content.grant-access.v1',
      'billing.capture-payment.v1',
      'content.activate-access.v1',
      'billing.issue-invoice.v1',
      'notifications.send-welcome-email.v1',
    ]);
  });

  it('given the buyer is rejected, then nothing is sent and the checkout is rejected with the reason', () => {
    const then = given(started).when(answered(BuyerRejected, { reason: 'user-blocked' }));

    expect(then.sends).toEqual([]);
    expect(then.checkout).toMatchObject({ status: 'REJECTED', failureReason: 'user-blocked' });
  });

  it('given the card declined, then nothing is undone and the checkout fails', () => {
    const then = given(started, answered(BuyerVerified)).when(answered(PaymentDeclined, { reason: 'card-declined' }));

    expect(then.sends).toEqual([]);
    expect(then.checkout).toMatchObject({ status: 'FAILED', failureReason: 'card-declined' });
  });

  it('given access refused, then the authorization is voided with the reason, and once voided the checkout fails', () => {
    const refused = given(...happyPath.slice(0, 3)).when(answered(AccessRefused, { reason: 'not-licensed' }));

    expect(refused.sends).toEqual(['billing.void-authorization.v1']);
    expect(refused.sent[0].payload).toMatchObject({
      idempotencyKey: `${id}:billing.authorize-payment`,
      reason: 'not-licensed',
    });
    expect(refused.checkout).toMatchObject({ status: 'PENDING', step: 'billing.void-authorization' });

    const voided = given(...happyPath.slice(0, 3), answered(AccessRefused, { reason: 'not-licensed' })).when(
      answered(PaymentVoided, { reason: 'not-licensed' }),
    );
    expect(voided.sends).toEqual([]);
    expect(voided.checkout).toMatchObject({ status: 'FAILED', failureReason: 'not-licensed' });
  });

  it('given the capture declined, then access is revoked and then the authorization voided: the reverse order', () => {
    const declined = answered(CaptureDeclined, { reason: 'capture-declined' });

    const then = given(...happyPath.slice(0, 4)).when(
      declined,
      answered(AccessRevoked, { reason: 'capture-declined' }),
      answered(PaymentVoided, { reason: 'capture-declined' }),
    );

    expect(then.sends).toEqual(['content.revoke-access.v1', 'billing.void-authorization.v1']);
    expect(then.checkout).toMatchObject({ status: 'FAILED', failureReason: 'capture-declined' });
  });

  it('given the capture failed, when the backoff passes, then it is asked again under the same key, the next attempt', () => {
    const then = given(...happyPath.slice(0, 4)).when(failedAt('billing.capture-payment', 1), deadlinePassed);

    expect(then.sends).toEqual(['billing.capture-payment.v1']);
    expect(then.sent[0].payload).toEqual({
      checkoutId: id,
      idempotencyKey: `${id}:billing.capture-payment`,
      attempt: 2,
    });
    expect(then.checkout.status).toBe('PENDING');
  });

  it('given the capture never answered, when its limit passes, then a person is asked and nothing is undone', () => {
    const then = given(...happyPath.slice(0, 4)).when(deadlinePassed, deadlinePassed, deadlinePassed, deadlinePassed);

    expect(then.sends).toEqual([
      'billing.capture-payment.v1',
      'billing.capture-payment.v1',
      'billing.capture-payment.v1',
    ]);
    expect(then.checkout).toMatchObject({ status: 'INTERVENTION', step: 'billing.capture-payment' });
    expect(then.checkout.failureReason).toContain('never undone blind');
  });

  it('given the void failing past its limit, then a person is asked; when they retry, the void is sent again and the checkout ends failed', () => {
    const refusedAccess = [...happyPath.slice(0, 3), answered(AccessRefused, { reason: 'not-licensed' })];
    const voidFailed = failedAt('billing.void-authorization', 1, 'gateway down');
    const stuck = [
      ...refusedAccess,
      voidFailed,
      deadlinePassed,
      failedAt('billing.void-authorization', 2, 'gateway down'),
    ];

    expect(given(...refusedAccess).when(...stuck.slice(refusedAccess.length)).checkout).toMatchObject({
      status: 'INTERVENTION',
    });
    const then = given(...stuck).when(personRetries, answered(PaymentVoided, { reason: 'not-licensed' }));
    expect(then.sends).toEqual(['billing.void-authorization.v1']);
    expect(then.checkout).toMatchObject({ status: 'FAILED', failureReason: 'not-licensed' });
  });

  it('given the grant asked again after silence, when its first send is refused late, then nothing is sent: the second is still to answer', () => {
    const resent = [...happyPath.slice(0, 3), deadlinePassed];

    const then = given(...resent).when(answered(AccessRefused, { reason: 'not-licensed' }, 1));

    expect(then.sends).toEqual([]);
    expect(then.checkout).toMatchObject({ status: 'PENDING', step: 'content.grant-access' });
  });

  it('given the grant asked again after silence, when the second send is refused, then the grant and the authorization are undone', () => {
    const resent = [...happyPath.slice(0, 3), deadlinePassed];

    const then = given(...resent).when(answered(AccessRefused, { reason: 'not-licensed' }, 2));

    expect(then.sends).toEqual(['content.revoke-access.v1']);
    expect(then.checkout).toMatchObject({ status: 'PENDING', step: 'content.revoke-access' });
  });

  it('given the capture retried by a person, when a capture from before the retry is declined late, then nothing is sent: the retried one is still to answer', () => {
    const retried = [...happyPath.slice(0, 4), ...Array(4).fill(deadlinePassed), personRetries];

    const then = given(...retried).when(answered(CaptureDeclined, { reason: 'capture-declined' }, 4, 0));

    expect(then.sends).toEqual([]);
    expect(then.checkout).toMatchObject({ status: 'PENDING', step: 'billing.capture-payment' });
  });

  it('given the capture retried by a person, when the retried capture is declined, then access is revoked', () => {
    const retried = [...happyPath.slice(0, 4), ...Array(4).fill(deadlinePassed), personRetries];

    const then = given(...retried).when(answered(CaptureDeclined, { reason: 'capture-declined' }, 1, 1));

    expect(then.sends).toEqual(['content.revoke-access.v1']);
    expect(then.checkout).toMatchObject({ status: 'PENDING', step: 'content.revoke-access' });
  });

  it('when an answer names its send and its generation, then the saga reads both, from a refusal and from a failure alike', () => {
    const headers = { 'step-attempt': '3', 'step-generation': '1' };
    const read = (heard: Heard) =>
      SAGA_ANSWERS.get(heard.contract.type)!(heard.payload as AnswerPayload, heard.headers);

    expect(read({ ...answered(CaptureDeclined, { reason: 'capture-declined' }), headers })).toMatchObject({
      type: 'refused',
      attempt: 3,
      generation: 1,
    });
    expect(
      read({ ...answered(BillingStepFailed, { step: 'billing.capture-payment', error: 'down', attempt: 3 }), headers }),
    ).toMatchObject({ type: 'failed', attempt: 3, generation: 1 });
    expect(read(answered(CaptureDeclined, { reason: 'capture-declined' }))).toMatchObject({ generation: undefined });
  });

  it('given a step done, when the same answer comes again, then nothing is sent', () => {
    expect(given(started, answered(BuyerVerified)).when(answered(BuyerVerified)).sends).toEqual([]);
  });

  it('listens to every answer of the table, each once', () => {
    const types = SAGA_ANSWER_TYPES;

    expect(new Set(types).size).toBe(types.length);
    expect([...SAGA_ANSWERS.keys()].sort()).toEqual([...types].sort());
  });
});
