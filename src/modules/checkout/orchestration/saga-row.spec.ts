import { given } from './saga.specification';
import type { Saga, SagaInput } from './domain/saga';
import { rowOfSaga, type SagaColumns, sagaFromRow, type SagaStepColumns, UnreadableSagaError } from './saga-row';

const id = '7d1c4b6e-8f0a-4d2b-9c3e-5a6b7c8d9e0f';
const start: SagaInput = { type: 'start' };
const deadline: SagaInput = { type: 'deadline' };
const done = (step: string, undoing = false): SagaInput => ({ type: 'done', step, undoing });
const upToGrant = [start, done('identity.verify-user'), done('billing.authorize-payment')];
const upToCapture = [...upToGrant, done('content.grant-access')];
const grantRefused: SagaInput = { type: 'refused', step: 'content.grant-access', reason: 'not-licensed' };
const voidFailed: SagaInput = {
  type: 'failed',
  step: 'billing.authorize-payment',
  undoing: true,
  error: 'gateway down',
};

/** A saga in each status (and each kind of intervention), as the saga reaches it. */
const SAGAS: Record<string, Saga> = {
  running: given(start).saga,
  'running, backing off': given(start, { type: 'failed', step: 'identity.verify-user', error: 'db down' }).saga,
  compensating: given(...upToGrant, grantRefused).saga,
  completed: given(
    ...upToCapture,
    done('billing.capture-payment'),
    done('content.activate-access'),
    done('billing.issue-invoice'),
    done('notifications.send-welcome-email'),
  ).saga,
  compensated: given(...upToGrant, grantRefused, done('billing.authorize-payment', true)).saga,
  'in intervention while running': given(...upToCapture, deadline, deadline, deadline, deadline).saga,
  'in intervention while compensating': given(...upToGrant, grantRefused, voidFailed, deadline, voidFailed).saga,
  'retried by an operator': given(...upToCapture, deadline, deadline, deadline, deadline, { type: 'retry' }).saga,
};

const stepRowsOf = (saga: Saga): SagaStepColumns[] =>
  Object.entries(saga.steps)
    .filter(([, record]) => record.status !== 'PENDING')
    .map(([step, record]) => ({
      step,
      status: record.status,
      attempts: record.attempts,
      compensation_attempts: record.compensationAttempts,
      uncertain: record.uncertain,
    }));

/** A stored row of `saga`, with `change` made to it. */
const read = (saga: Saga, change: Partial<SagaColumns> = {}) =>
  sagaFromRow(id, { ...rowOfSaga(saga), ...change }, stepRowsOf(saga));

describe("a saga's row", () => {
  it.each(Object.entries(SAGAS))('when a saga %s is stored and read back, then it is the same saga', (_, saga) => {
    expect(read(saga)).toEqual(saga);
  });

  it('when a saga has left an intervention, then its row keeps nothing of it', () => {
    const resumed = given(...upToGrant, grantRefused, voidFailed, deadline, voidFailed, { type: 'retry' }).saga;

    expect(rowOfSaga(resumed)).toMatchObject({ status: 'COMPENSATING', intervention: null, interrupted_while: null });
  });

  it('when a running row still names the status an earlier intervention interrupted, then it is read as running', () => {
    expect(read(SAGAS.running, { interrupted_while: 'RUNNING' })).toEqual(SAGAS.running);
  });

  it.each<[string, Saga, Partial<SagaColumns>, string]>([
    ['an unknown status', SAGAS.running, { status: 'PAUSED' }, 'its status is PAUSED'],
    [
      'an unknown step',
      SAGAS.running,
      { current_step: 'checkout.wait-forever' },
      'checkout.wait-forever is not a step',
    ],
    ['undoing while running', SAGAS.running, { undoing: true }, 'it is RUNNING, but undoing is true'],
    ['a compensation without its reason', SAGAS.compensating, { reason: null }, 'COMPENSATING without a reason'],
    ['a compensation whose list skips its step', SAGAS.compensating, { to_undo: [] }, 'starts with undefined'],
    ['completed with another outcome', SAGAS.completed, { outcome: 'failed' }, 'COMPLETED with the outcome failed'],
    ['compensated with no outcome', SAGAS.compensated, { outcome: null }, 'COMPENSATED with the outcome null'],
    [
      'an intervention that does not say why',
      SAGAS['in intervention while running'],
      { intervention: null },
      'without saying why',
    ],
    [
      'an intervention that does not say where it stopped',
      SAGAS['in intervention while running'],
      { interrupted_while: null },
      'interrupted while null',
    ],
    ['a generation below none', SAGAS.running, { generation: -1 }, 'its generation is -1'],
  ])('when a row holds %s, then it is refused, loudly', (_, saga, change, why) => {
    expect(() => read(saga, change)).toThrow(UnreadableSagaError);
    expect(() => read(saga, change)).toThrow(why);
  });
});
