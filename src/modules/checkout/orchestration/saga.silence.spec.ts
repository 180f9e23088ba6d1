import type { SagaInput } from './domain/saga';
import { deadlineAfterMs as deadlineOf } from './domain/saga.deadline';
import { deadline, done, given, refused, retry, SPEC_SAGA, SPEC_STEPS, start, times, upTo } from './saga.specification';

/**
 * The checkout saga when a step does not answer, or fails: sent again, undone, or handed to a
 * person as the step's class says, and how long it waits each time.
 * The other topics, and the saga by its messages, are listed in saga.specification.ts, whose
 * given/when/then they all use.
 */

const { VERIFY, AUTHORIZE, GRANT, CAPTURE, ACTIVATE, INVOICE, EMAIL } = SPEC_STEPS;

const deadlineAfterMs = (...history: SagaInput[]) => deadlineOf(given(...history).saga, SPEC_SAGA);

describe('the orchestrated checkout saga', () => {
  describe('no answer', () => {
    it('given a step without an answer, when its deadline passes, then it is sent again with the next attempt', () => {
      const then = given(start, done(VERIFY)).when(deadline);

      expect(then.commands).toEqual([{ step: AUTHORIZE, kind: 'action', executes: AUTHORIZE, attempt: 2 }]);
      expect(then.saga.steps[AUTHORIZE]).toMatchObject({ attempts: 2, uncertain: true });
    });

    it('given a compensable step never answered, when its limit is reached, then it is undone too, uncertain as it is', () => {
      const then = given(start, done(VERIFY), ...times(2, deadline)).when(deadline);

      expect(then.saga).toMatchObject({ status: 'COMPENSATING', current: AUTHORIZE, outcome: 'failed' });
      expect(then.saga).toHaveProperty('reason', expect.stringContaining('billing.authorize-payment did not answer'));
      expect(then.commands).toEqual([
        {
          step: AUTHORIZE,
          kind: 'compensation',
          executes: 'billing.void-authorization',
          attempt: 1,
          reason: 'billing.authorize-payment did not answer',
        },
      ]);
    });

    it('given the step before it done, when the grant is never answered, then both are undone, the grant first', () => {
      const { saga } = given(...upTo(GRANT), ...times(2, deadline)).when(deadline);

      expect(saga).toMatchObject({ status: 'COMPENSATING', current: GRANT, toUndo: [GRANT, AUTHORIZE] });
    });

    it('given the pivot never answered, when its limit is reached, then a person is asked and nothing is undone', () => {
      const then = given(...upTo(CAPTURE), ...times(3, deadline)).when(deadline);

      expect(then.saga).toMatchObject({ status: 'INTERVENTION', current: CAPTURE, interruptedWhile: 'RUNNING' });
      expect(then.saga).not.toHaveProperty('toUndo');
      expect(then.saga).toHaveProperty('intervention', expect.stringContaining('never undone blind'));
      expect(then.commands).toEqual([]);
    });

    it('given the pivot waiting for a person, when its next deadline passes, then it is asked again: it never gives up', () => {
      const then = given(...upTo(CAPTURE), ...times(4, deadline)).when(deadline);

      expect(then.saga.status).toBe('INTERVENTION');
      expect(then.commands).toEqual([{ step: CAPTURE, kind: 'action', executes: CAPTURE, attempt: 5 }]);
    });

    it('given a failed send, when the same failure is reported again or an older send fails late, then nothing changes', () => {
      const failed: SagaInput = { type: 'failed', step: AUTHORIZE, error: 'db down', attempt: 1 };
      const again = given(start, done(VERIFY), failed).when(failed);
      expect(again.saga).toBe(again.before);

      const late = given(start, done(VERIFY), failed, deadline).when({ ...failed, error: 'late' });
      expect(late.saga).toBe(late.before);
      expect(late.commands).toEqual([]);
    });

    it('given the welcome email never answered, when its limit is reached, then a person is asked, never compensation', () => {
      const { saga } = given(...upTo(EMAIL), ...times(2, deadline)).when(deadline);

      expect(saga).toMatchObject({ status: 'INTERVENTION', current: EMAIL, interruptedWhile: 'RUNNING' });
      expect(saga.steps[CAPTURE].status).toBe('DONE');
    });

    it("given the invoice never answered, then it is sent again past a step's limit, up to the outage's, then a person is asked, never compensation", () => {
      const waiting = given(...upTo(INVOICE), ...times(4, deadline)).when(deadline);
      expect(waiting.saga).toMatchObject({ status: 'RUNNING', current: INVOICE });
      expect(waiting.commands).toEqual([{ step: INVOICE, kind: 'action', executes: INVOICE, attempt: 6 }]);

      const { saga, commands } = given(...upTo(INVOICE), ...times(5, deadline)).when(deadline);
      expect(saga).toMatchObject({ status: 'INTERVENTION', current: INVOICE, interruptedWhile: 'RUNNING' });
      expect(saga).toHaveProperty('intervention', 'billing.issue-invoice did not answer 6 times');
      expect(commands).toEqual([]);
      expect(saga.steps[CAPTURE].status).toBe('DONE');
    });

    it('given the invoice failing as the authority is down, then it backs off and is sent again, as when it is silent', () => {
      const down: SagaInput = { type: 'failed', step: INVOICE, error: 'authority answered 503', attempt: 1 };
      const then = given(...upTo(INVOICE)).when(down);
      expect(then.saga).toMatchObject({ status: 'RUNNING', current: INVOICE, backingOff: true });
      expect(given(...upTo(INVOICE), down).when(deadline).commands).toEqual([
        { step: INVOICE, kind: 'action', executes: INVOICE, attempt: 2 },
      ]);
    });

    it('given the activation never answered, when its limit is reached, then a person is asked, never compensation: the money was taken', () => {
      const { saga } = given(...upTo(ACTIVATE), ...times(2, deadline)).when(deadline);

      expect(saga).toMatchObject({ status: 'INTERVENTION', current: ACTIVATE, interruptedWhile: 'RUNNING' });
      expect(saga.steps[CAPTURE].status).toBe('DONE');
    });

    it('given the verification never answered, when its limit is reached, then it fails with nothing to undo', () => {
      const then = given(start, ...times(2, deadline)).when(deadline);

      expect(then.saga).toMatchObject({ status: 'COMPENSATED', outcome: 'failed' });
      expect(then.commands).toEqual([]);
    });

    it('given the pivot in intervention, when its answer finally comes, then the saga carries on from it', () => {
      const then = given(...upTo(CAPTURE), ...times(4, deadline)).when(done(CAPTURE));

      expect(then.saga).toEqual({
        status: 'RUNNING',
        current: ACTIVATE,
        steps: expect.any(Object),
        generation: 0,
        backingOff: false,
      });
      expect(then.commands).toEqual([{ step: ACTIVATE, kind: 'action', executes: ACTIVATE, attempt: 1 }]);
    });
  });

  describe('a failing compensation', () => {
    const compensating = [...upTo(GRANT), refused(GRANT, 'not-licensed')];
    const failedVoid: SagaInput = { type: 'failed', step: AUTHORIZE, undoing: true, error: 'gateway down' };
    const voidAgain = {
      step: AUTHORIZE,
      kind: 'compensation',
      executes: 'billing.void-authorization',
      reason: 'not-licensed',
    };

    it('given the void failed once, then it is sent again, after a backoff', () => {
      const failed = given(...compensating).when(failedVoid);
      expect(failed.saga).toMatchObject({ status: 'COMPENSATING', backingOff: true });
      expect(failed.commands).toEqual([]);

      expect(given(...compensating, failedVoid).when(deadline).commands).toEqual([{ ...voidAgain, attempt: 2 }]);
    });

    it('given the void failed as many times as its limit, then a person is asked, and a retry resumes it', () => {
      const stuck = [...compensating, failedVoid, deadline, failedVoid];
      const { saga } = given(...compensating, failedVoid, deadline).when(failedVoid);

      expect(saga).toMatchObject({ status: 'INTERVENTION', interruptedWhile: 'COMPENSATING', reason: 'not-licensed' });
      expect(saga).toHaveProperty(
        'intervention',
        expect.stringContaining('billing.void-authorization failed (gateway down) 2 times'),
      );

      const retried = given(...stuck).when(retry);
      expect(retried.saga).toEqual(expect.objectContaining({ status: 'COMPENSATING', current: AUTHORIZE }));
      expect(retried.saga).not.toHaveProperty('intervention');
      expect(retried.commands).toEqual([{ ...voidAgain, attempt: 1 }]);
      expect(given(...stuck, retry).when(done(AUTHORIZE, true)).saga).toMatchObject({
        status: 'COMPENSATED',
        outcome: 'failed',
        reason: 'not-licensed',
      });
    });
  });

  describe('deadlines', () => {
    it('given a first send, then the deadline is one timeout away; each resend waits twice as long', () => {
      expect(deadlineAfterMs(start)).toBe(1_000);
      expect(deadlineAfterMs(start, deadline)).toBe(2_000);
      expect(deadlineAfterMs(start, deadline, deadline)).toBe(4_000);
    });

    it('given a saga that waits for nothing, then it has no deadline', () => {
      expect(deadlineAfterMs(...upTo(EMAIL), done(EMAIL))).toBeUndefined();
      expect(deadlineAfterMs(...upTo(EMAIL), ...times(3, deadline))).toBeUndefined();
    });

    it("given the invoice without an answer, then each wait doubles up to the outage's longest, then stays there", () => {
      expect([0, 1, 2, 3, 4].map((n) => deadlineAfterMs(...upTo(INVOICE), ...times(n, deadline)))).toEqual([
        1_000, 2_000, 4_000, 4_000, 4_000,
      ]);
      expect(deadlineAfterMs(...upTo(INVOICE), ...times(6, deadline))).toBeUndefined();
    });

    it('given the pivot waiting for a person, then it still has a deadline, the wait capped', () => {
      expect(deadlineAfterMs(...upTo(CAPTURE), ...times(20, deadline))).toBe(64_000);
    });
  });
});
