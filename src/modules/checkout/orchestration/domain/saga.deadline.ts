import type { StepDefinition } from '../../domain/checkout';
import { definitionOf, type Saga, type SagaDefinition, sendsOf, unknownStatus } from './saga';

/** Longest wait between two sends, in step timeouts: 2^6. */
const MAX_BACKOFF_EXPONENT = 6;

/**
 * Whether the saga still sends by itself: when it runs or compensates, and when the pivot waits
 * for a person, because the pivot is never given up on: it goes on asking until it knows.
 */
export function keepsTrying(saga: Saga, table: readonly StepDefinition[]): boolean {
  switch (saga.status) {
    case 'RUNNING':
    case 'COMPENSATING':
      return true;
    case 'INTERVENTION':
      return (
        saga.interruptedWhile === 'RUNNING' &&
        definitionOf(saga.current, table).class === 'pivot' &&
        saga.steps[saga.current].status === 'STARTED'
      );
    case 'COMPLETED':
    case 'COMPENSATED':
      return false;
    default:
      return unknownStatus(saga);
  }
}

/**
 * How long after now the saga must have heard about its current send; none when it waits for
 * nothing. A wait, not a moment: the database adds it to its own clock, so that deadlines are set
 * and compared by one clock however far an app host's drifts.
 */
export function deadlineAfterMs(saga: Saga, { table, policy }: SagaDefinition): number | undefined {
  if (!keepsTrying(saga, table)) return undefined;
  const doublings = Math.max(0, sendsOf(saga) - 1);
  if (saga.status === 'RUNNING' && definitionOf(saga.current, table).waitsOutOutages) {
    // An outage of hours: the waits double until the longest the policy allows, then stay there.
    return Math.min(policy.stepTimeoutMs * 2 ** Math.min(doublings, 30), policy.outage.maxWaitMs);
  }
  return policy.stepTimeoutMs * 2 ** Math.min(doublings, MAX_BACKOFF_EXPONENT);
}
