import type { Saga } from './domain/saga';
import { deadline, done, given, refused, SPEC_STEPS, start, upTo } from './saga.specification';

/**
 * The checkout saga going forward: each step sent in turn, and what a definitive refusal before
 * the pivot undoes. The shape of its state is checked here too.
 * The other topics, and the saga by its messages, are listed in saga.specification.ts, whose
 * given/when/then they all use.
 */

const { VERIFY, AUTHORIZE, GRANT, CAPTURE, ACTIVATE, INVOICE, EMAIL } = SPEC_STEPS;

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
      expect(Object.values(then.saga.steps).map((s) => s.status)).toEqual(Array(7).fill('DONE'));
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
        { step: INVOICE, kind: 'action', executes: INVOICE, attempt: 1 },
      ]);
    });

    it('given the access activated, then the sale is invoiced before the welcome email is sent', () => {
      expect(given(...upTo(INVOICE)).when(done(INVOICE)).commands).toEqual([
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
});
