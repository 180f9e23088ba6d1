import { FORWARD_STEPS } from '../core/checkout-steps';
import type { CheckoutStep } from '../domain/checkout';
import { isUndoing, SAGA_STATUSES, type Saga, sendsOf, type StepRecord, type StepStatus } from './domain/saga';

/**
 * A saga as `checkout.sagas` holds it: one flat row whatever its status, with a column for every
 * field any status has. The saga itself is one shape per status (domain/saga.ts); these
 * two functions are the only place where one becomes the other.
 */
export interface SagaColumns {
  status: string;
  current_step: string;
  undoing: boolean;
  /** The sends of what it does now (the step's command, or its compensation), for operators. */
  attempts: number;
  to_undo: string[];
  outcome: string | null;
  reason: string | null;
  intervention: string | null;
  interrupted_while: string | null;
  backing_off: boolean;
  /** Operators' retries so far: what the commands' `step-generation` header says. */
  generation: number;
}

/** A started step's row in `checkout.saga_steps`. */
export interface SagaStepColumns {
  step: string;
  status: string;
  attempts: number;
  compensation_attempts: number;
  uncertain: boolean;
}

/** A stored saga that no status can hold: it is not guessed at, it is refused. */
export class UnreadableSagaError extends Error {
  constructor(
    readonly sagaId: string,
    why: string,
  ) {
    super(`Saga ${sagaId} cannot be read: ${why}`);
    this.name = 'UnreadableSagaError';
  }
}

const STEP_STATUSES: readonly StepStatus[] = ['STARTED', 'DONE', 'FAILED', 'COMPENSATING', 'COMPENSATED'];
const isOneOf = <T extends string>(values: readonly T[], value: string | null): value is T =>
  values.includes(value as T);

/**
 * The saga a row holds, or UnreadableSagaError when the row means nothing: an unknown status or
 * step, `undoing` that disagrees with the status, a compensation without its reason or its list,
 * an intervention that does not say why or where it stopped. Columns that the status does not
 * use (an intervention's text once it was settled, say) are left unread.
 */
export function sagaFromRow(id: string, row: SagaColumns, stepRows: readonly SagaStepColumns[]): Saga {
  const refuse = (why: string): never => {
    throw new UnreadableSagaError(id, why);
  };
  const step = (name: string): CheckoutStep =>
    isOneOf(FORWARD_STEPS, name) ? name : refuse(`${name} is not a step of the checkout`);
  const stored = new Map(stepRows.map((found) => [step(found.step), found]));
  const steps = Object.fromEntries(
    FORWARD_STEPS.map((name): [CheckoutStep, StepRecord] => {
      const found = stored.get(name);
      if (!found) return [name, { status: 'PENDING', attempts: 0, compensationAttempts: 0, uncertain: false }];
      if (!isOneOf(STEP_STATUSES, found.status)) return refuse(`step ${name} is ${found.status}`);
      const { status, attempts, compensation_attempts: compensationAttempts, uncertain } = found;
      return [name, { status, attempts, compensationAttempts, uncertain }];
    }),
  );
  const current = step(row.current_step);
  const status = isOneOf(SAGA_STATUSES, row.status) ? row.status : refuse(`its status is ${row.status}`);
  const undoing = status === 'COMPENSATING' || (status === 'INTERVENTION' && row.interrupted_while === 'COMPENSATING');
  if (row.undoing !== undoing) refuse(`it is ${status}${undoing ? ' undoing' : ''}, but undoing is ${row.undoing}`);
  const outcome = (): 'rejected' | 'failed' =>
    isOneOf(['rejected', 'failed'] as const, row.outcome)
      ? row.outcome
      : refuse(`it is ${status} with the outcome ${row.outcome}`);
  const reason = () => row.reason ?? refuse(`it is ${status} without a reason`);
  const { generation } = row;
  if (!Number.isInteger(generation) || generation < 0) refuse(`its generation is ${generation}`);
  const running = { current, steps, generation, backingOff: row.backing_off };
  const compensating = () => {
    const [first, ...rest] = row.to_undo.map(step);
    if (first !== current) refuse(`it undoes ${current}, but its list of steps to undo starts with ${first}`);
    return {
      ...running,
      toUndo: [first, ...rest],
      outcome: outcome(),
      reason: reason(),
    };
  };

  switch (status) {
    case 'RUNNING':
      return { status, ...running };
    case 'COMPENSATING':
      return { status, ...compensating() };
    case 'COMPLETED':
      return row.outcome === 'completed'
        ? { status, current, steps, generation, outcome: 'completed' }
        : refuse(`it is COMPLETED with the outcome ${row.outcome}`);
    case 'COMPENSATED':
      return {
        status,
        current,
        steps,
        generation,
        outcome: outcome(),
        reason: reason(),
      };
    case 'INTERVENTION': {
      const intervention = row.intervention ?? refuse('it is in INTERVENTION without saying why');
      if (row.interrupted_while === 'RUNNING') {
        return { status, interruptedWhile: 'RUNNING', intervention, ...running };
      }
      if (row.interrupted_while === 'COMPENSATING') {
        return { status, interruptedWhile: 'COMPENSATING', intervention, ...compensating() };
      }
      return refuse(`it is in INTERVENTION, interrupted while ${row.interrupted_while}`);
    }
    default:
      return unknown(status);
  }
}

function unknown(status: never): never {
  throw new Error(`A saga status with no shape: ${String(status)}`);
}

/** The row that holds `saga`: the columns its status does not use are empty. */
export function rowOfSaga(saga: Saga): SagaColumns {
  const empty = { to_undo: [], outcome: null, reason: null, intervention: null, interrupted_while: null };
  const base = {
    status: saga.status,
    current_step: saga.current,
    undoing: isUndoing(saga),
    attempts: sendsOf(saga),
    backing_off: false,
    generation: saga.generation,
  };
  switch (saga.status) {
    case 'RUNNING':
      return { ...base, ...empty, backing_off: saga.backingOff };
    case 'COMPENSATING':
      return { ...base, ...empty, ...undoList(saga), backing_off: saga.backingOff };
    case 'COMPLETED':
      return { ...base, ...empty, outcome: saga.outcome };
    case 'COMPENSATED':
      return { ...base, ...empty, outcome: saga.outcome, reason: saga.reason };
    case 'INTERVENTION': {
      const stopped = { intervention: saga.intervention, interrupted_while: saga.interruptedWhile };
      const undoing = saga.interruptedWhile === 'COMPENSATING' ? undoList(saga) : {};
      return { ...base, ...empty, ...undoing, ...stopped, backing_off: saga.backingOff };
    }
    default:
      return unknown(saga);
  }
}

const undoList = (saga: { toUndo: CheckoutStep[]; outcome: string; reason: string }) => ({
  to_undo: saga.toUndo,
  outcome: saga.outcome,
  reason: saga.reason,
});
