import { CHECKOUT_STEPS, type ForwardStep } from '../../core/checkout-steps';
import { type Saga, type SagaInput, sagaMachine, type SagaPolicy } from './checkout.saga';

const { decide, deadlineAfterMs, evolve, newSaga } = sagaMachine(CHECKOUT_STEPS);

const policy: SagaPolicy = { stepAttempts: 3, pivotAttempts: 4, compensationAttempts: 2, stepTimeoutMs: 1_000 };

const VERIFY = 'identity.verify-user';
const AUTHORIZE = 'billing.authorize-payment';
const GRANT = 'content.grant-access';
const CAPTURE = 'billing.capture-payment';
const ACTIVATE = 'content.activate-access';
const EMAIL = 'notifications.send-welcome-email';

/** Given these inputs, from a new saga... */
const given = (...inputs: SagaInput[]): Saga => inputs.reduce((saga, input) => evolve(saga, input, policy), newSaga());
const done = (step: ForwardStep, undoing = false): SagaInput => ({ type: 'done', step, undoing });
const start: SagaInput = { type: 'start' };
const deadline: SagaInput = { type: 'deadline' };
const times = (n: number, input: SagaInput) => Array.from({ length: n }, () => input);
/** ...when this one arrives, then the saga is `evolve` and the commands are `decide`. */
const when = (saga: Saga, input: SagaInput) => ({
  saga: evolve(saga, input, policy),
  commands: decide(saga, input, policy),
});
const upTo = (step: ForwardStep) => {
  const order = [VERIFY, AUTHORIZE, GRANT, CAPTURE, ACTIVATE, EMAIL] as const;
  return [start, ...order.slice(0, order.indexOf(step)).map((s) => done(s))];
};

describe('the orchestrated checkout saga', () => {
  describe('going forward', () => {
    it('given a new saga, when started, then it sends the first step', () => {
      const { saga, commands } = when(newSaga(), start);

      expect(saga).toMatchObject({ status: 'RUNNING', current: VERIFY, undoing: false });
      expect(commands).toEqual([{ step: VERIFY, kind: 'action', executes: VERIFY, attempt: 1 }]);
    });

    it('given each step done, when the last is done, then it is completed and sends nothing', () => {
      const { saga, commands } = when(given(...upTo(EMAIL)), done(EMAIL));

      expect(saga).toMatchObject({ status: 'COMPLETED', outcome: 'completed' });
      expect(Object.values(saga.steps).map((s) => s.status)).toEqual(Array(6).fill('DONE'));
      expect(commands).toEqual([]);
    });

    it('given a step done, when the same answer comes again, then nothing changes and nothing is sent', () => {
      const before = given(start, done(VERIFY));

      const { saga, commands } = when(before, done(VERIFY));

      expect(saga).toBe(before);
      expect(commands).toEqual([]);
    });
  });

  describe('the provisional grant', () => {
    it('given the capture done, then the access is activated before the welcome email is sent', () => {
      const captured = when(given(...upTo(CAPTURE)), done(CAPTURE));

      expect(captured.commands).toEqual([{ step: ACTIVATE, kind: 'action', executes: ACTIVATE, attempt: 1 }]);
      expect(when(captured.saga, done(ACTIVATE)).commands).toEqual([
        { step: EMAIL, kind: 'action', executes: EMAIL, attempt: 1 },
      ]);
    });

    it('given the capture declined, then the access is never activated: the provisional grant is revoked', () => {
      const { saga, commands } = when(given(...upTo(CAPTURE)), {
        type: 'refused',
        step: CAPTURE,
        reason: 'capture-declined',
      });

      expect(commands.map((c) => c.executes)).toEqual(['content.revoke-access']);
      expect(saga.steps[ACTIVATE].status).toBe('PENDING');
    });
  });

  describe('a definitive refusal before the pivot', () => {
    it('given the buyer refused, then it ends rejected with nothing to undo', () => {
      const { saga, commands } = when(given(start), { type: 'refused', step: VERIFY, reason: 'user-blocked' });

      expect(saga).toMatchObject({ status: 'COMPENSATED', outcome: 'rejected', reason: 'user-blocked', toUndo: [] });
      expect(commands).toEqual([]);
    });

    it('given access refused, then the authorization is voided, and then it ends failed', () => {
      const refusedAccess = when(given(...upTo(GRANT)), { type: 'refused', step: GRANT, reason: 'not-licensed' });

      expect(refusedAccess.saga).toMatchObject({ status: 'COMPENSATING', current: AUTHORIZE, undoing: true });
      expect(refusedAccess.commands).toEqual([
        { step: AUTHORIZE, kind: 'compensation', executes: 'billing.void-authorization', attempt: 1 },
      ]);
      const voided = when(refusedAccess.saga, done(AUTHORIZE, true));
      expect(voided.saga).toMatchObject({ status: 'COMPENSATED', outcome: 'failed', reason: 'not-licensed' });
      expect(voided.saga.steps[AUTHORIZE].status).toBe('COMPENSATED');
      expect(voided.saga.steps[GRANT].status).toBe('FAILED');
    });

    it('given a step refused at once, then it is not undone: it had no effect', () => {
      const { saga } = when(given(...upTo(GRANT)), { type: 'refused', step: GRANT, reason: 'not-licensed' });

      expect(saga.toUndo).toEqual([AUTHORIZE]);
    });

    it('given a step that once did not answer, when it is then refused, then it is undone too: the refusal says nothing of the earlier send', () => {
      const { saga } = when(given(...upTo(GRANT), deadline), { type: 'refused', step: GRANT, reason: 'not-licensed' });

      expect(saga.toUndo).toEqual([GRANT, AUTHORIZE]);
      expect(saga.steps[GRANT]).toMatchObject({ status: 'COMPENSATING', uncertain: true });
    });

    it('given a step sent again after silence, when the earlier send is refused late, then it is ignored: the resend is still to answer', () => {
      const resent = given(...upTo(GRANT), deadline);

      const { saga, commands } = when(resent, { type: 'refused', step: GRANT, reason: 'not-licensed', attempt: 1 });

      expect(saga).toBe(resent);
      expect(commands).toEqual([]);
    });

    it('given a step sent again after silence, when the current send is refused, then it is undone with the others', () => {
      const resent = given(...upTo(GRANT), deadline);

      const { saga, commands } = when(resent, { type: 'refused', step: GRANT, reason: 'not-licensed', attempt: 2 });

      expect(saga).toMatchObject({ status: 'COMPENSATING', reason: 'not-licensed', toUndo: [GRANT, AUTHORIZE] });
      expect(commands).toEqual([{ step: GRANT, kind: 'compensation', executes: 'content.revoke-access', attempt: 1 }]);
    });

    it('given the capture declined, then access is revoked and then the authorization voided: reverse order', () => {
      const declined = when(given(...upTo(CAPTURE)), { type: 'refused', step: CAPTURE, reason: 'capture-declined' });

      expect(declined.commands).toEqual([
        { step: GRANT, kind: 'compensation', executes: 'content.revoke-access', attempt: 1 },
      ]);
      const revoked = when(declined.saga, done(GRANT, true));
      expect(revoked.commands).toEqual([
        { step: AUTHORIZE, kind: 'compensation', executes: 'billing.void-authorization', attempt: 1 },
      ]);
      expect(when(revoked.saga, done(AUTHORIZE, true)).saga).toMatchObject({
        status: 'COMPENSATED',
        outcome: 'failed',
      });
    });
  });

  describe('no answer', () => {
    it('given a step without an answer, when its deadline passes, then it is sent again with the next attempt', () => {
      const { saga, commands } = when(given(start, done(VERIFY)), deadline);

      expect(commands).toEqual([{ step: AUTHORIZE, kind: 'action', executes: AUTHORIZE, attempt: 2 }]);
      expect(saga.steps[AUTHORIZE]).toMatchObject({ attempts: 2, uncertain: true });
    });

    it('given a compensable step never answered, when its limit is reached, then it is undone too, uncertain as it is', () => {
      const { saga, commands } = when(given(start, done(VERIFY), ...times(2, deadline)), deadline);

      expect(saga).toMatchObject({ status: 'COMPENSATING', current: AUTHORIZE, undoing: true, outcome: 'failed' });
      expect(saga.reason).toContain('billing.authorize-payment did not answer');
      expect(commands).toEqual([
        { step: AUTHORIZE, kind: 'compensation', executes: 'billing.void-authorization', attempt: 1 },
      ]);
    });

    it('given the step before it done, when the grant is never answered, then both are undone, the grant first', () => {
      const { saga } = when(given(...upTo(GRANT), ...times(2, deadline)), deadline);

      expect(saga.toUndo).toEqual([GRANT, AUTHORIZE]);
      expect(saga.current).toBe(GRANT);
    });

    it('given the pivot never answered, when its limit is reached, then a person is asked and nothing is undone', () => {
      const { saga, commands } = when(given(...upTo(CAPTURE), ...times(3, deadline)), deadline);

      expect(saga).toMatchObject({ status: 'INTERVENTION', current: CAPTURE, undoing: false, toUndo: [] });
      expect(saga.intervention).toContain('never undone blind');
      expect(commands).toEqual([]);
    });

    it('given the pivot waiting for a person, when its next deadline passes, then it is asked again: it never gives up', () => {
      const stuck = given(...upTo(CAPTURE), ...times(4, deadline));

      const { saga, commands } = when(stuck, deadline);

      expect(saga.status).toBe('INTERVENTION');
      expect(commands).toEqual([{ step: CAPTURE, kind: 'action', executes: CAPTURE, attempt: 5 }]);
    });

    it('given a failed send, when the same failure is reported again or an older send fails late, then nothing changes', () => {
      const failed = given(start, done(VERIFY), { type: 'failed', step: AUTHORIZE, error: 'db down', attempt: 1 });

      expect(when(failed, { type: 'failed', step: AUTHORIZE, error: 'db down', attempt: 1 }).saga).toBe(failed);
      const resent = evolve(failed, deadline, policy);
      expect(when(resent, { type: 'failed', step: AUTHORIZE, error: 'late', attempt: 1 }).saga).toBe(resent);
    });

    it('given the welcome email never answered, when its limit is reached, then a person is asked, never compensation', () => {
      const { saga } = when(given(...upTo(EMAIL), ...times(2, deadline)), deadline);

      expect(saga).toMatchObject({ status: 'INTERVENTION', current: EMAIL, toUndo: [] });
      expect(saga.steps[CAPTURE].status).toBe('DONE');
    });

    it('given the activation never answered, when its limit is reached, then a person is asked, never compensation: the money was taken', () => {
      const { saga } = when(given(...upTo(ACTIVATE), ...times(2, deadline)), deadline);

      expect(saga).toMatchObject({ status: 'INTERVENTION', current: ACTIVATE, toUndo: [] });
      expect(saga.steps[CAPTURE].status).toBe('DONE');
    });

    it('given the verification never answered, when its limit is reached, then it fails with nothing to undo', () => {
      const { saga } = when(given(start, ...times(2, deadline)), deadline);

      expect(saga).toMatchObject({ status: 'COMPENSATED', outcome: 'failed', toUndo: [] });
    });

    it('given the pivot in intervention, when its answer finally comes, then the saga carries on from it', () => {
      const stuck = given(...upTo(CAPTURE), ...times(4, deadline));

      const { saga, commands } = when(stuck, done(CAPTURE));

      expect(saga).toMatchObject({ status: 'RUNNING', current: ACTIVATE, intervention: undefined });
      expect(commands).toEqual([{ step: ACTIVATE, kind: 'action', executes: ACTIVATE, attempt: 1 }]);
    });
  });

  describe('a failing compensation', () => {
    const compensating = given(...upTo(GRANT), { type: 'refused', step: GRANT, reason: 'not-licensed' });
    const failedVoid: SagaInput = { type: 'failed', step: AUTHORIZE, undoing: true, error: 'gateway down' };

    it('given the void failed once, then it is sent again, after a backoff', () => {
      const failed = when(compensating, failedVoid);
      expect(failed.saga.backingOff).toBe(true);
      expect(failed.commands).toEqual([]);

      const { commands } = when(failed.saga, deadline);

      expect(commands).toEqual([
        { step: AUTHORIZE, kind: 'compensation', executes: 'billing.void-authorization', attempt: 2 },
      ]);
    });

    it('given the void failed as many times as its limit, then a person is asked, and a retry resumes it', () => {
      const { saga } = when(
        given(...upTo(GRANT), { type: 'refused', step: GRANT, reason: 'not-licensed' }, failedVoid, deadline),
        failedVoid,
      );

      expect(saga).toMatchObject({ status: 'INTERVENTION', undoing: true, reason: 'not-licensed' });
      expect(saga.intervention).toContain('billing.void-authorization failed (gateway down) 2 times');

      const retried = when(saga, { type: 'retry' });
      expect(retried.saga).toMatchObject({ status: 'COMPENSATING', intervention: undefined });
      expect(retried.commands).toEqual([
        { step: AUTHORIZE, kind: 'compensation', executes: 'billing.void-authorization', attempt: 1 },
      ]);
      expect(when(retried.saga, done(AUTHORIZE, true)).saga).toMatchObject({
        status: 'COMPENSATED',
        outcome: 'failed',
        reason: 'not-licensed',
      });
    });
  });

  describe('answers that do not belong', () => {
    it('given the saga undoing a step, when a late answer to that step comes, then it is ignored', () => {
      const undoing = given(start, done(VERIFY), ...times(3, deadline));

      expect(when(undoing, done(AUTHORIZE)).saga).toBe(undoing);
    });

    it('given a finished saga, when anything comes, then nothing changes', () => {
      const completed = given(...upTo(EMAIL), done(EMAIL));

      for (const input of [deadline, { type: 'retry' } as const, done(VERIFY)]) {
        expect(when(completed, input)).toEqual({ saga: completed, commands: [] });
      }
    });
  });

  describe('deadlines', () => {
    it('given a first send, then the deadline is one timeout away; each resend waits twice as long', () => {
      expect(deadlineAfterMs(given(start), policy)).toBe(1_000);
      expect(deadlineAfterMs(given(start, deadline), policy)).toBe(2_000);
      expect(deadlineAfterMs(given(start, deadline, deadline), policy)).toBe(4_000);
    });

    it('given a saga that waits for nothing, then it has no deadline', () => {
      expect(deadlineAfterMs(given(...upTo(EMAIL), done(EMAIL)), policy)).toBeUndefined();
      expect(deadlineAfterMs(given(...upTo(EMAIL), ...times(3, deadline)), policy)).toBeUndefined();
    });

    it('given the pivot waiting for a person, then it still has a deadline, the wait capped', () => {
      const stuck = given(...upTo(CAPTURE), ...times(20, deadline));

      expect(deadlineAfterMs(stuck, policy)).toBe(64_000);
    });
  });
});
