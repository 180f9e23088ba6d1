import type { StepDefinition } from '../../domain/checkout';
import { compensationOf, isUndoing, type Saga, type SagaCommand, type SagaDefinition, type SagaInput } from './saga';
import { evolve } from './saga.evolve';

/**
 * The commands `input` calls for: none, or one. The saga counts its sends in its state (each
 * step's sends and its compensation's, and the generation an operator's retry starts), so what it
 * sends is read from where `evolve` leaves it: the send it then waits on, when that is a new one.
 * Nothing is sent when it waits on the same send as before (backing off, stopped for a person),
 * when it waits on nothing (it ended), or when the input changed nothing.
 */
export function decide(input: SagaInput, saga: Saga, definition: SagaDefinition): SagaCommand[] {
  const after = evolve(saga, input, definition);
  const next = awaitedSend(after, definition.table);
  if (!next) return [];
  const previous = awaitedSend(saga, definition.table);
  const same =
    previous !== undefined &&
    saga.generation === after.generation &&
    previous.kind === next.kind &&
    previous.step === next.step &&
    previous.attempt === next.attempt;
  return same ? [] : [next];
}

/**
 * The send the saga waits on: its current step's command, or its compensation's when it undoes
 * that step, and which send of it; none before the first send, or once the saga ended.
 */
function awaitedSend(saga: Saga, table: readonly StepDefinition[]): SagaCommand | undefined {
  if (saga.status === 'COMPLETED' || saga.status === 'COMPENSATED') return undefined;
  const step = saga.current;
  if (!isUndoing(saga)) {
    const attempt = saga.steps[step].attempts;
    return attempt === 0 ? undefined : { step, kind: 'action', executes: step, attempt };
  }
  const attempt = saga.steps[step].compensationAttempts;
  if (attempt === 0 || !('reason' in saga)) return undefined;
  return { step, kind: 'compensation', executes: compensationOf(step, table), attempt, reason: saga.reason };
}
