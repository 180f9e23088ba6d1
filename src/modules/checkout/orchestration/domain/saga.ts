import type { CheckoutStep, StepDefinition } from '../../domain/checkout';

/**
 * The orchestrated checkout's saga: its state, one shape per status, and what it learns and sends.
 * What it becomes on an input is `evolve`, which commands that calls for `decide` (both in
 * saga.transitions.ts), how soon it must hear back `deadlineAfterMs` (saga.deadline.ts). Nothing here
 * touches a database or a queue; the orchestrator persists and sends. The table of steps, with the
 * messages of each step, is the checkout's (core/checkout-steps.ts): the saga knows steps only by
 * name and class.
 */

export interface SagaPolicy {
  /** Sends of a step before giving up on it (compensable steps are then undone). */
  stepAttempts: number;
  /** Sends of the pivot before a person is alerted; it goes on trying until it knows. */
  pivotAttempts: number;
  /** Sends of a compensation before a person takes over. */
  compensationAttempts: number;
  /** How long to wait for an answer to the first send; each next one waits twice as long. */
  stepTimeoutMs: number;
  /**
   * For a step that waits out its participant's outages: its sends before a person is called
   * (never a compensation), and the longest wait between two, where the doubling stops.
   */
  outage: { attempts: number; maxWaitMs: number };
}

/** What a saga runs over: the table of steps, in order, and the policy of its sends. */
export interface SagaDefinition {
  table: readonly StepDefinition[];
  policy: SagaPolicy;
}

export type StepStatus = 'PENDING' | 'STARTED' | 'DONE' | 'FAILED' | 'COMPENSATING' | 'COMPENSATED';

export interface StepRecord {
  status: StepStatus;
  /** Sends of the step's command so far. */
  attempts: number;
  /** Sends of its compensation so far. */
  compensationAttempts: number;
  /** It was given up on without an answer: it may or may not have had its effect. */
  uncertain: boolean;
}

/** What every saga has, whatever its status: where it is, and what each step has been through. */
export interface Position {
  /** The step being done, or being undone (by its compensation), or where the saga stopped. */
  current: CheckoutStep;
  steps: Record<CheckoutStep, StepRecord>;
  /**
   * Operators' retries so far. A retry counts the sends again from 1, so the generation is what
   * tells an answer to a send from before the retry from one to a send after it.
   */
  generation: number;
}

/** Doing `current`: its command is sent, and the saga waits for the answer. */
export interface Running extends Position {
  status: 'RUNNING';
  /** The last send failed: the next waits for the deadline (backoff) instead of going at once. */
  backingOff: boolean;
}

/** Undoing `current` by its compensation, then the other steps of `toUndo`, for `reason`. */
export interface Compensating extends Position {
  status: 'COMPENSATING';
  /** The steps still to undo, `current` first. */
  toUndo: CheckoutStep[];
  /** How the checkout ends once everything is undone. */
  outcome: 'rejected' | 'failed';
  /** Why it is being undone. */
  reason: string;
  /** The last send of the compensation failed: the next waits for the deadline (backoff). */
  backingOff: boolean;
}

/** Every step done. */
export interface Completed extends Position {
  status: 'COMPLETED';
  outcome: 'completed';
}

/** Refused or given up on, and everything that had to be undone undone. */
export interface Compensated extends Position {
  status: 'COMPENSATED';
  outcome: 'rejected' | 'failed';
  /** Why it was undone. */
  reason: string;
}

/** A running or compensating saga that stopped for a person: a retry resumes it where it stood. */
export type Interrupted<S extends Running | Compensating> = Omit<S, 'status'> & {
  status: 'INTERVENTION';
  /** What it was doing when it stopped: a retry, or a late answer, carries on from there. */
  interruptedWhile: S['status'];
  /** Why it waits for a person. */
  intervention: string;
};
export type Intervention = Interrupted<Running> | Interrupted<Compensating>;

/**
 * The orchestrated checkout, one shape per status: each holds what that status means and nothing
 * else, so a saga that is running has nothing to undo, and one in intervention always says why
 * and where it stopped.
 */
export type Saga = Running | Compensating | Completed | Compensated | Intervention;
export type SagaStatus = Saga['status'];
export const SAGA_STATUSES = [
  'RUNNING',
  'COMPENSATING',
  'COMPLETED',
  'COMPENSATED',
  'INTERVENTION',
] as const satisfies readonly SagaStatus[];

/** Whether the saga is undoing `current` rather than doing it (in intervention too). */
export const isUndoing = (saga: Saga): boolean =>
  saga.status === 'COMPENSATING' || (saga.status === 'INTERVENTION' && saga.interruptedWhile === 'COMPENSATING');

/** Sends so far of what the saga does now: `current`'s command, or its compensation when undoing. */
export const sendsOf = (saga: Saga): number =>
  isUndoing(saga) ? saga.steps[saga.current].compensationAttempts : saga.steps[saga.current].attempts;

/**
 * A participant's answer, as the saga reads it. `step` is the step the answer is about (an action's,
 * even for its compensation).
 */
export type Answer =
  /** The step was done; with `undoing`, its compensation was. */
  | { type: 'done'; step: CheckoutStep; undoing?: boolean }
  /**
   * A definitive business "no" to send `attempt` of `generation` (when it says which): that send
   * had no effect.
   */
  | { type: 'refused'; step: CheckoutStep; reason: string; attempt?: number; generation?: number }
  /** The participant tried and failed (its writes rolled back; an outside effect may remain). */
  | { type: 'failed'; step: CheckoutStep; undoing?: boolean; error: string; attempt?: number; generation?: number };

/** What the saga can learn: that it starts, an answer, that a deadline passed, a person's retry. */
export type SagaInput =
  | { type: 'start' }
  | Answer
  /** No answer by the deadline: the step may or may not have had its effect. */
  | { type: 'deadline' }
  /** A person resumes a saga in intervention. */
  | { type: 'retry' };

/** A command the saga sends: a step's action, or its compensation (which says why). */
export type SagaCommand = {
  step: CheckoutStep;
  /** The step the command executes: the action, or its compensation. */
  executes: CheckoutStep;
  /** 1 for the first send; the idempotency key is the same on every one. */
  attempt: number;
} & ({ kind: 'action' } | { kind: 'compensation'; reason: string });

/**
 * Whether `input` is a refusal or a failure of a send from another generation than the saga's (a
 * send before an operator's retry): it says nothing of the sends since, and is ignored. A done
 * answer of any send is the step's effect, and an answer that names no generation (sent before
 * generations were named) is read as the current one's.
 */
export const isStale = (saga: Saga, input: SagaInput): boolean =>
  (input.type === 'refused' || input.type === 'failed') &&
  input.generation !== undefined &&
  input.generation !== saga.generation;

/** A status that a switch over statuses did not handle: the compiler says so first. */
export function unknownStatus(saga: never): never {
  throw new Error(`A saga in an unknown status: ${JSON.stringify(saga)}`);
}

/** A saga not started yet over `table`: every step pending. */
export function newSaga(table: readonly StepDefinition[]): Running {
  const steps = Object.fromEntries(
    table.map(({ name }) => [
      name,
      { status: 'PENDING', attempts: 0, compensationAttempts: 0, uncertain: false } satisfies StepRecord,
    ]),
  );
  return { status: 'RUNNING', current: table[0].name, steps, generation: 0, backingOff: false };
}

/** The row of `step` in the table. */
export function definitionOf(step: CheckoutStep, table: readonly StepDefinition[]): StepDefinition {
  const definition = table.find((d) => d.name === step);
  if (!definition) throw new Error(`No step ${step} in the saga's table`);
  return definition;
}

/** The compensation that undoes a compensable step. */
export function compensationOf(step: CheckoutStep, table: readonly StepDefinition[]): CheckoutStep {
  const compensation = definitionOf(step, table).compensation;
  if (!compensation) throw new Error(`${step} has no compensation`);
  return compensation.name;
}
