import type { SagaInput } from './domain/saga';
import { deadline, done, given, refused, retry, SPEC_STEPS, start, times, upTo } from './saga.specification';

/**
 * The checkout saga and answers that come late: to a step it no longer does, after it ended, or
 * to a send from before an operator's retry.
 * The other topics, and the saga by its messages, are listed in saga.specification.ts, whose
 * given/when/then they all use.
 */

const { VERIFY, AUTHORIZE, GRANT, CAPTURE, ACTIVATE, EMAIL } = SPEC_STEPS;

describe('the orchestrated checkout saga', () => {
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
});
