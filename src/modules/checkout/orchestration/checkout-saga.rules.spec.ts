import type { ForwardStep } from '../core/checkout-steps';
import { given, SPEC_SAGA } from './checkout-saga.specification';
import type { Saga, SagaInput } from './domain/saga';
import { deadlineAfterMs as deadlineOf } from './domain/saga.deadline';

/**
 * The checkout saga's rules, by what it learns (inputs), what it becomes (its state) and which
 * commands it sends. The same saga by the messages it hears and sends is
 * checkout-saga.messages.spec.ts; both use one given/when/then (checkout-saga.specification.ts).
 */

const VERIFY = 'identity.verify-user';
const AUTHORIZE = 'billing.authorize-payment';
const GRANT = 'content.grant-access';
const CAPTURE = 'billing.capture-payment';
const ACTIVATE = 'content.activate-access';
const EMAIL = 'notifications.send-welcome-email';

const done = (step: ForwardStep, undoing = false): SagaInput => ({ type: 'done', step, undoing });
const refused = (step: ForwardStep, reason: string, attempt?: number, generation?: number): SagaInput => ({
  type: 'refused',
  step,
  reason,
  attempt,
  generation,
});
const start: SagaInput = { type: 'start' };
const deadline: SagaInput = { type: 'deadline' };
const retry: SagaInput = { type: 'retry' };
const times = (n: number, input: SagaInput) => Array.from({ length: n }, () => input);
/** Started, and every step before `step` done. */
const upTo = (step: ForwardStep) => {
  const order = [VERIFY, AUTHORIZE, GRANT, CAPTURE, ACTIVATE, EMAIL] as const;
  return [start, ...order.slice(0, order.indexOf(step)).map((s) => done(s))];
};
const deadlineAfterMs = (...history: SagaInput[]) => deadlineOf(given(...history).saga, SPEC_SAGA);

describe('the orchestrated checkout saga', () => {
  describe('going forward', () => {
    it('given a new saga, when started, then it sends the first step', () => {
      const then = given().when(start);

      expect(then.saga).toMatchObject({ status: 'RUNNING', current: VERIFY, backingOff: false });
      expect(then.commands).toEqual([{ step: VERIFY, kind: 'action', executes: VERIFY, attempt: 1 }]);
    });

    it('given each step done, when the last is done, then it is completed and sends nothing', () => {
      const then = given(...upTo(EMAIL)).when(done(EMAIL));

      expect(then.saga).toMatchObject({ status: 'COMPLETED', outcome: 'completed' });
      expect(Object.values(then.saga.steps).map((s) => s.status)).toEqual(Array(6).fill('DONE'));
      expect(then.commands).toEqual([]);
    });

    it('given a step done, when the same answer comes again, then nothing changes and nothing is sent', () => {
      const then = given(start, done(VERIFY)).when(done(VERIFY));

      expect(then.saga).toBe(then.before);
      expect(then.commands).toEqual([]);
    });
  });

  describe('the provisional grant', () => {
    it('given the capture done, then the access is activated before the welcome email is sent', () => {
      expect(given(...upTo(CAPTURE)).when(done(CAPTURE)).commands).toEqual([
        { step: ACTIVATE, kind: 'action', executes: ACTIVATE, attempt: 1 },
      ]);
      expect(given(...upTo(CAPTURE), done(CAPTURE)).when(done(ACTIVATE)).commands).toEqual([
        { step: EMAIL, kind: 'action', executes: EMAIL, attempt: 1 },
      ]);
    });

    it('given the capture declined, then the access is never activated: the provisional grant is revoked', () => {
      const then = given(...upTo(CAPTURE)).when(refused(CAPTURE, 'capture-declined'));

      expect(then.commands.map((c) => c.executes)).toEqual(['content.revoke-access']);
      expect(then.saga.steps[ACTIVATE].status).toBe('PENDING');
    });
  });

  describe('a definitive refusal before the pivot', () => {
    it('given the buyer refused, then it ends rejected with nothing to undo', () => {
      const then = given(start).when(refused(VERIFY, 'user-blocked'));

      expect(then.saga).toEqual({
        status: 'COMPENSATED',
        current: VERIFY,
        steps: expect.any(Object),
        generation: 0,
        outcome: 'rejected',
        reason: 'user-blocked',
      });
      expect(then.commands).toEqual([]);
    });

    it('given access refused, then the authorization is voided, and then it ends failed', () => {
      const refusedAccess = given(...upTo(GRANT)).when(refused(GRANT, 'not-licensed'));

      expect(refusedAccess.saga).toMatchObject({ status: 'COMPENSATING', current: AUTHORIZE });
      expect(refusedAccess.commands).toEqual([
        {
          step: AUTHORIZE,
          kind: 'compensation',
          executes: 'billing.void-authorization',
          attempt: 1,
          reason: 'not-licensed',
        },
      ]);
      const voided = given(...upTo(GRANT), refused(GRANT, 'not-licensed')).when(done(AUTHORIZE, true));
      expect(voided.saga).toMatchObject({ status: 'COMPENSATED', outcome: 'failed', reason: 'not-licensed' });
      expect(voided.saga.steps[AUTHORIZE].status).toBe('COMPENSATED');
      expect(voided.saga.steps[GRANT].status).toBe('FAILED');
    });

    it('given a step refused at once, then it is not undone: it had no effect', () => {
      const { saga } = given(...upTo(GRANT)).when(refused(GRANT, 'not-licensed'));

      expect(saga).toMatchObject({ status: 'COMPENSATING', toUndo: [AUTHORIZE] });
    });

    it('given a step that once did not answer, when it is then refused, then it is undone too: the refusal says nothing of the earlier send', () => {
      const { saga } = given(...upTo(GRANT), deadline).when(refused(GRANT, 'not-licensed'));

      expect(saga).toMatchObject({ status: 'COMPENSATING', toUndo: [GRANT, AUTHORIZE] });
      expect(saga.steps[GRANT]).toMatchObject({ status: 'COMPENSATING', uncertain: true });
    });

    it('given a step sent again after silence, when the earlier send is refused late, then it is ignored: the resend is still to answer', () => {
      const then = given(...upTo(GRANT), deadline).when(refused(GRANT, 'not-licensed', 1));

      expect(then.saga).toBe(then.before);
      expect(then.commands).toEqual([]);
    });

    it('given a step sent again after silence, when the current send is refused, then it is undone with the others', () => {
      const then = given(...upTo(GRANT), deadline).when(refused(GRANT, 'not-licensed', 2));

      expect(then.saga).toMatchObject({ status: 'COMPENSATING', reason: 'not-licensed', toUndo: [GRANT, AUTHORIZE] });
      expect(then.commands).toEqual([
        { step: GRANT, kind: 'compensation', executes: 'content.revoke-access', attempt: 1, reason: 'not-licensed' },
      ]);
    });

    it('given the capture declined, then access is revoked and then the authorization voided: reverse order', () => {
      const declined = [...upTo(CAPTURE), refused(CAPTURE, 'capture-declined')];

      expect(given(...upTo(CAPTURE)).when(refused(CAPTURE, 'capture-declined')).commands).toEqual([
        {
          step: GRANT,
          kind: 'compensation',
          executes: 'content.revoke-access',
          attempt: 1,
          reason: 'capture-declined',
        },
      ]);
      expect(given(...declined).when(done(GRANT, true)).commands).toEqual([
        {
          step: AUTHORIZE,
          kind: 'compensation',
          executes: 'billing.void-authorization',
          attempt: 1,
          reason: 'capture-declined',
        },
      ]);
      expect(given(...declined, done(GRANT, true)).when(done(AUTHORIZE, true)).saga).toMatchObject({
        status: 'COMPENSATED',
        outcome: 'failed',
      });
    });
  });

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

  describe('answers that do not belong', () => {
    it('given the saga undoing a step, when a late answer to that step comes, then it is ignored', () => {
      const then = given(start, done(VERIFY), ...times(3, deadline)).when(done(AUTHORIZE));

      expect(then.before.status).toBe('COMPENSATING');
      expect(then.saga).toBe(then.before);
    });

    it('given a finished saga, when anything comes, then nothing changes', () => {
      const completed = [...upTo(EMAIL), done(EMAIL)];

      for (const input of [deadline, retry, done(VERIFY)]) {
        const then = given(...completed).when(input);
        expect(then.saga).toBe(then.before);
        expect(then.commands).toEqual([]);
      }
    });
  });

  describe("answers from before an operator's retry", () => {
    /** The pivot asked as many times as its limit (four sends), a person called, and their retry. */
    const pivotRetried = [...upTo(CAPTURE), ...times(4, deadline), retry];

    it('given the pivot in intervention, when a person retries, then it is sent again as the first send of a new generation', () => {
      const then = given(...upTo(CAPTURE), ...times(4, deadline)).when(retry);

      expect(then.before).toMatchObject({ status: 'INTERVENTION', generation: 0 });
      expect(then.saga).toMatchObject({ status: 'RUNNING', current: CAPTURE, generation: 1 });
      expect(then.commands).toEqual([{ step: CAPTURE, kind: 'action', executes: CAPTURE, attempt: 1 }]);
    });

    it('given the pivot retried, when a send from before the retry is refused late, then it is ignored: the send after it is still to answer', () => {
      const then = given(...pivotRetried).when(refused(CAPTURE, 'capture-declined', 4, 0));

      expect(then.saga).toBe(then.before);
      expect(then.commands).toEqual([]);
    });

    it('given the pivot retried, when the send after the retry is refused, then access is revoked and the authorization voided', () => {
      const then = given(...pivotRetried).when(refused(CAPTURE, 'capture-declined', 1, 1));

      expect(then.saga).toMatchObject({ status: 'COMPENSATING', reason: 'capture-declined', generation: 1 });
      expect(then.commands).toEqual([
        {
          step: GRANT,
          kind: 'compensation',
          executes: 'content.revoke-access',
          attempt: 1,
          reason: 'capture-declined',
        },
      ]);
    });

    it('given the pivot retried, when a send from before the retry is done late, then it counts: the money was taken', () => {
      const then = given(...pivotRetried).when(done(CAPTURE));

      expect(then.saga).toMatchObject({ status: 'RUNNING', current: ACTIVATE, generation: 1 });
    });

    it('given a void retried after failing, when a failure from before the retry comes late, then it is ignored', () => {
      const voidFailed = (attempt: number, generation: number): SagaInput => ({
        type: 'failed',
        step: AUTHORIZE,
        undoing: true,
        error: 'gateway down',
        attempt,
        generation,
      });
      const stuck = [...upTo(GRANT), refused(GRANT, 'not-licensed'), voidFailed(1, 0), deadline, voidFailed(2, 0)];

      const late = given(...stuck, retry).when(voidFailed(2, 0));
      expect(late.saga).toBe(late.before);
      expect(given(...stuck, retry).when(voidFailed(1, 1)).saga).toMatchObject({ backingOff: true });
    });

    it('given a saga retried twice, when an answer of the first retry comes, then it is as stale as one from before both', () => {
      const twice = [...pivotRetried, ...times(4, deadline), retry];

      expect(given(...twice).saga).toMatchObject({ status: 'RUNNING', generation: 2 });
      for (const generation of [0, 1]) {
        const then = given(...twice).when(refused(CAPTURE, 'capture-declined', 1, generation));
        expect(then.saga).toBe(then.before);
      }
    });

    it('given the pivot retried, when a refusal names no generation (sent before generations were named), then it is read as current', () => {
      const then = given(...pivotRetried).when(refused(CAPTURE, 'capture-declined', 1));

      expect(then.saga).toMatchObject({ status: 'COMPENSATING' });
    });
  });

  describe('its shape', () => {
    it('given a state that means nothing, then it does not compile', () => {
      const { steps } = given(start).saga;
      const shapes: Saga[] = [
        // @ts-expect-error A running saga has nothing to undo.
        { status: 'RUNNING', current: VERIFY, steps, generation: 0, backingOff: false, toUndo: [AUTHORIZE] },
        // @ts-expect-error A compensating saga says why.
        {
          status: 'COMPENSATING',
          current: AUTHORIZE,
          steps,
          generation: 0,
          backingOff: false,
          toUndo: [AUTHORIZE],
          outcome: 'failed',
        },
        // @ts-expect-error A saga in intervention says where it stopped.
        {
          status: 'INTERVENTION',
          current: CAPTURE,
          steps,
          generation: 0,
          backingOff: false,
          intervention: 'a person must act',
        },
        // @ts-expect-error A completed saga completed.
        { status: 'COMPLETED', current: EMAIL, steps, generation: 0, outcome: 'failed' },
      ];

      expect(shapes).toHaveLength(4);
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

    it('given the pivot waiting for a person, then it still has a deadline, the wait capped', () => {
      expect(deadlineAfterMs(...upTo(CAPTURE), ...times(20, deadline))).toBe(64_000);
    });
  });
});
