import type { ProgressFact, StepDefinition } from '../../domain/checkout';
import { compensationOf, isUndoing, type Saga, unknownStatus } from './saga';

/** What a move of the saga from `before` to `after` means for the checkout's status read model. */
export function factsOf(before: Saga, after: Saga, table: readonly StepDefinition[]): ProgressFact[] {
  if (before.status === after.status && before.current === after.current && isUndoing(before) === isUndoing(after))
    return [];
  const resumed: ProgressFact[] =
    before.status === 'INTERVENTION' && after.status !== 'INTERVENTION' ? [{ kind: 'resumed' }] : [];
  switch (after.status) {
    case 'RUNNING':
      return [...resumed, { kind: 'reached', step: after.current }];
    case 'COMPENSATING':
      return [...resumed, { kind: 'compensating', step: compensationOf(after.current, table), reason: after.reason }];
    case 'COMPLETED':
      return [...resumed, { kind: 'completed' }];
    case 'COMPENSATED':
      return [
        ...resumed,
        after.outcome === 'rejected'
          ? { kind: 'rejected', reason: after.reason }
          : { kind: 'failed', reason: after.reason },
      ];
    case 'INTERVENTION':
      return [{ kind: 'intervention', reason: after.intervention }];
    default:
      return unknownStatus(after);
  }
}
