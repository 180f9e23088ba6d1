import type { CheckoutStep } from '../../domain/checkout';
import type { SagaStatus, StepStatus } from '../domain/saga';
import type { SagaColumns, SagaStepColumns } from '../saga-row';

/** A row of `checkout.sagas` as a query reads it. */
export interface SagaRow extends SagaColumns {
  id: string;
  next_deadline: Date | null;
  version: number;
}

/** A saga as operators read it: camelCase, and `state` as in the `?state=` filter and the `sagas{state}` metric. */
export interface SagaView {
  id: string;
  state: SagaStatus;
  currentStep: CheckoutStep;
  undoing: boolean;
  attempts: number;
  toUndo: CheckoutStep[];
  outcome: string | null;
  reason: string | null;
  intervention: string | null;
  interruptedWhile: string | null;
  backingOff: boolean;
  generation: number;
  nextDeadline: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  steps: SagaStepView[];
}

export interface SagaStepView {
  step: CheckoutStep;
  state: Exclude<StepStatus, 'PENDING'>;
  attempts: number;
  compensationAttempts: number;
  uncertain: boolean;
  result: unknown;
  lastError: string | null;
  startedAt: string;
  updatedAt: string;
}

/** A listed saga: the status and the step states as the table's checks allow them. */
export interface ListedSagaRow extends Omit<SagaRow, 'status'> {
  status: SagaStatus;
  created_at: Date;
  updated_at: Date;
  /** Built by json_agg: its timestamps are strings. */
  steps: Array<
    Omit<SagaStepColumns, 'status'> & {
      status: Exclude<StepStatus, 'PENDING'>;
      result: unknown;
      last_error: string | null;
      started_at: string;
      updated_at: string;
    }
  >;
}

const iso = (at: Date | string): string => new Date(at).toISOString();

export const toSagaView = (row: ListedSagaRow): SagaView => ({
  id: row.id,
  state: row.status,
  currentStep: row.current_step,
  undoing: row.undoing,
  attempts: row.attempts,
  toUndo: row.to_undo,
  outcome: row.outcome,
  reason: row.reason,
  intervention: row.intervention,
  interruptedWhile: row.interrupted_while,
  backingOff: row.backing_off,
  generation: row.generation,
  nextDeadline: row.next_deadline ? iso(row.next_deadline) : null,
  version: row.version,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
  steps: row.steps.map((step) => ({
    step: step.step,
    state: step.status,
    attempts: step.attempts,
    compensationAttempts: step.compensation_attempts,
    uncertain: step.uncertain,
    result: step.result,
    lastError: step.last_error,
    startedAt: iso(step.started_at),
    updatedAt: iso(step.updated_at),
  })),
});
