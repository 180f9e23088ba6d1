import type { CheckoutStep, ProgressFact, StepDefinition } from '../../domain/checkout';

/**
 * The orchestrated checkout as a pure state machine over a table of steps: `evolve` says what a
 * saga becomes when it learns something, `decide` which commands that calls for, `deadlineAfterMs`
 * how soon it must have heard back. Nothing here touches a database or a queue; the runner
 * persists and sends. The table itself, with the messages of each step, is the checkout's
 * (core/checkout-steps.ts): this file knows steps only by name and class.
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
}

export type SagaStatus = 'RUNNING' | 'COMPENSATING' | 'COMPLETED' | 'COMPENSATED' | 'INTERVENTION';
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

export interface Saga {
  status: SagaStatus;
  /** The step being done, or being undone (by its compensation), or where the saga stopped. */
  current: CheckoutStep;
  /** Whether `current` is being undone rather than done. */
  undoing: boolean;
  steps: Record<CheckoutStep, StepRecord>;
  /** The steps still to undo, the next first. */
  toUndo: CheckoutStep[];
  /** How it ended, once it has: the checkout is completed, rejected or failed. */
  outcome?: 'completed' | 'rejected' | 'failed';
  /** Why it is being undone, or was. */
  reason?: string;
  /** Why it waits for a person, while it does. */
  intervention?: string;
  /** Where an intervention interrupted it: a retry resumes from there. */
  interruptedWhile?: 'RUNNING' | 'COMPENSATING';
  /** The last send failed: the next waits for the deadline (backoff) instead of going at once. */
  backingOff?: boolean;
}

/** What the saga can learn. `step` is the step the message is about (an action's, even for its compensation). */
export type SagaInput =
  | { type: 'start' }
  /** The step was done; with `undoing`, its compensation was. */
  | { type: 'done'; step: CheckoutStep; undoing?: boolean }
  /** A definitive business "no" to send `attempt` (when it says which): that send had no effect. */
  | { type: 'refused'; step: CheckoutStep; reason: string; attempt?: number }
  /** The participant tried and failed (its writes rolled back; an outside effect may remain). */
  | { type: 'failed'; step: CheckoutStep; undoing?: boolean; error: string; attempt?: number }
  /** No answer by the deadline: the step may or may not have had its effect. */
  | { type: 'deadline' }
  /** A person resumes a saga in intervention. */
  | { type: 'retry' };

export interface SagaCommand {
  step: CheckoutStep;
  /** The action itself, or its compensation. */
  kind: 'action' | 'compensation';
  /** The step the command executes: the action, or its compensation. */
  executes: CheckoutStep;
  /** 1 for the first send; the idempotency key is the same on every one. */
  attempt: number;
}

/** The operations of a saga over one table of steps. */
export interface SagaMachine {
  /** A saga not started yet: every step pending. */
  newSaga(): Saga;
  /** The saga after learning `input`. An answer about anything but the current step changes nothing. */
  evolve(saga: Saga, input: SagaInput, policy: SagaPolicy): Saga;
  /** The commands that learning `input` calls for: the next send, if the saga moved or must resend. */
  decide(saga: Saga, input: SagaInput, policy: SagaPolicy): SagaCommand[];
  /** How long after now the saga must have heard about its current send; none when it waits for nothing. */
  deadlineAfterMs(saga: Saga, policy: SagaPolicy): number | undefined;
  /** The compensation that undoes a compensable step. */
  compensationOf(step: CheckoutStep): CheckoutStep;
  /** What a transition means for the checkout's status read model. */
  factsOf(before: Saga, after: Saga): ProgressFact[];
}

const isActive = (status: SagaStatus) => status === 'RUNNING' || status === 'COMPENSATING';

/** Longest wait between two sends, in step timeouts: 2^6. */
const MAX_BACKOFF_EXPONENT = 6;

/** The saga of `table`: steps in the table's order, each handled as its class says. */
export function sagaMachine(table: readonly StepDefinition[]): SagaMachine {
  const definitionOf = (step: CheckoutStep): StepDefinition => {
    const definition = table.find((d) => d.name === step);
    if (!definition) throw new Error(`No step ${step} in the saga's table`);
    return definition;
  };
  const compensationOf = (step: CheckoutStep): CheckoutStep => {
    const compensation = definitionOf(step).compensation;
    if (!compensation) throw new Error(`${step} has no compensation`);
    return compensation.name;
  };

  /**
   * Whether the saga still sends by itself: when it runs or compensates, and when the pivot waits
   * for a person, because the pivot is never given up on: it goes on asking until it knows.
   */
  function keepsTrying(saga: Saga): boolean {
    if (isActive(saga.status)) return true;
    return (
      saga.status === 'INTERVENTION' &&
      !saga.undoing &&
      definitionOf(saga.current).class === 'pivot' &&
      saga.steps[saga.current].status === 'STARTED'
    );
  }

  function newSaga(): Saga {
    const steps = Object.fromEntries(
      table.map(({ name }) => [
        name,
        { status: 'PENDING', attempts: 0, compensationAttempts: 0, uncertain: false } satisfies StepRecord,
      ]),
    ) as Record<CheckoutStep, StepRecord>;
    return { status: 'RUNNING', current: table[0].name, undoing: false, steps, toUndo: [] };
  }

  /** The saga after learning `input`. An answer about anything but the current step changes nothing. */
  function evolve(saga: Saga, input: SagaInput, policy: SagaPolicy): Saga {
    switch (input.type) {
      case 'start':
        return saga.steps[saga.current].attempts > 0 ? saga : send(saga, saga.current);
      case 'retry':
        return saga.status === 'INTERVENTION' ? resume(saga) : saga;
      case 'deadline':
        if (!keepsTrying(saga)) return saga;
        // The pivot in intervention is sent again, and still waits for a person (or its answer).
        if (saga.status === 'INTERVENTION') return { ...resend(saga), status: 'INTERVENTION' };
        // After a failure, the deadline was the backoff: now send again. Otherwise it is silence.
        return saga.backingOff ? resend(saga) : giveUpOrResend(saga, policy, { silent: true });
    }
    if (input.step !== saga.current || Boolean('undoing' in input && input.undoing) !== saga.undoing) return saga;
    // A late answer can settle an intervention: the saga then carries on from it.
    if (!isActive(saga.status) && saga.status !== 'INTERVENTION') return saga;
    // A refusal or a failure of an earlier send than the current one says nothing of the current
    // send, which is still to answer. A done answer of any send is the step's effect: it counts.
    const sends = saga.undoing ? saga.steps[saga.current].compensationAttempts : saga.steps[saga.current].attempts;
    if (input.type !== 'done' && input.attempt !== undefined && input.attempt < sends) return saga;
    const settled =
      saga.status === 'INTERVENTION' ? { ...saga, status: saga.interruptedWhile!, intervention: undefined } : saga;
    switch (input.type) {
      case 'done':
        return settled.undoing ? undone(settled) : done(settled);
      case 'refused':
        return refused(settled, input.reason);
      case 'failed':
        // Known already: a repeat of the failure the saga is backing off from.
        if (saga.backingOff) return saga;
        return giveUpOrResend(settled, policy, { silent: false, error: input.error });
    }
  }

  /** The commands that learning `input` calls for: the next send, if the saga moved or must resend. */
  function decide(saga: Saga, input: SagaInput, policy: SagaPolicy): SagaCommand[] {
    const next = evolve(saga, input, policy);
    if (!keepsTrying(next)) return [];
    const attempts = (s: Saga) => (s.undoing ? s.steps[s.current].compensationAttempts : s.steps[s.current].attempts);
    // A new step, a new send of the same one, or a resumption: each is a command. Stopping for a person is not.
    const moved =
      next.current !== saga.current ||
      next.undoing !== saga.undoing ||
      (next.status !== saga.status && next.status !== 'INTERVENTION') ||
      attempts(next) !== attempts(saga);
    if (!moved) return [];
    return [
      {
        step: next.current,
        kind: next.undoing ? 'compensation' : 'action',
        executes: next.undoing ? compensationOf(next.current) : next.current,
        attempt: attempts(next),
      },
    ];
  }

  /**
   * How long after now the saga must have heard about its current send; none when it waits for
   * nothing. A wait, not a moment: the database adds it to its own clock, so that deadlines are set
   * and compared by one clock however far an app host's drifts.
   */
  function deadlineAfterMs(saga: Saga, policy: SagaPolicy): number | undefined {
    if (!keepsTrying(saga)) return undefined;
    const record = saga.steps[saga.current];
    const sends = saga.undoing ? record.compensationAttempts : record.attempts;
    return policy.stepTimeoutMs * 2 ** Math.min(Math.max(0, sends - 1), MAX_BACKOFF_EXPONENT);
  }

  function send(saga: Saga, step: CheckoutStep): Saga {
    const record = saga.steps[step];
    return {
      ...saga,
      status: 'RUNNING',
      current: step,
      undoing: false,
      backingOff: false,
      steps: { ...saga.steps, [step]: { ...record, status: 'STARTED', attempts: record.attempts + 1 } },
    };
  }

  function sendCompensation(saga: Saga, step: CheckoutStep): Saga {
    const record = saga.steps[step];
    return {
      ...saga,
      status: 'COMPENSATING',
      current: step,
      undoing: true,
      backingOff: false,
      steps: {
        ...saga.steps,
        [step]: { ...record, status: 'COMPENSATING', compensationAttempts: record.compensationAttempts + 1 },
      },
    };
  }

  function done(saga: Saga): Saga {
    const steps = { ...saga.steps, [saga.current]: { ...saga.steps[saga.current], status: 'DONE' as const } };
    const index = table.findIndex((d) => d.name === saga.current);
    const next = table[index + 1];
    if (!next) return { ...saga, steps, status: 'COMPLETED', outcome: 'completed' };
    return send({ ...saga, steps }, next.name);
  }

  function undone(saga: Saga): Saga {
    const steps = { ...saga.steps, [saga.current]: { ...saga.steps[saga.current], status: 'COMPENSATED' as const } };
    const [, ...rest] = saga.toUndo;
    return compensateNext({ ...saga, steps, toUndo: rest });
  }

  /** Undoes the next step on the list, or ends the saga when nothing is left to undo. */
  function compensateNext(saga: Saga): Saga {
    const [next] = saga.toUndo;
    if (next) return sendCompensation(saga, next);
    return { ...saga, status: 'COMPENSATED', undoing: false, outcome: saga.outcome ?? 'failed' };
  }

  /**
   * Starts undoing, in reverse order, every compensable step that took effect before `failed`,
   * and `failed` itself when it may have taken effect.
   */
  function compensate(saga: Saga, failed: CheckoutStep, reason: string, outcome: 'rejected' | 'failed'): Saga {
    const index = table.findIndex((d) => d.name === failed);
    const toUndo = table
      .slice(0, index + 1)
      .filter(({ name, class: kind }) => {
        const record = saga.steps[name];
        return kind === 'compensable' && (record.status === 'DONE' || (name === failed && record.uncertain));
      })
      .map(({ name }) => name)
      .reverse();
    return compensateNext({ ...saga, toUndo, outcome, reason });
  }

  function refused(saga: Saga, reason: string): Saga {
    const step = saga.current;
    // A refusal answers this send; if an earlier one went unanswered, the step stays uncertain
    // (and is undone with the others: its compensation accepts "never happened").
    const steps = { ...saga.steps, [step]: { ...saga.steps[step], status: 'FAILED' as const } };
    const kind = definitionOf(step).class;
    if (kind === 'retriable') return intervene({ ...saga, steps }, `${step} refused after the pivot: ${reason}`);
    return compensate({ ...saga, steps }, step, reason, kind === 'verify' ? 'rejected' : 'failed');
  }

  const resend = (saga: Saga): Saga => (saga.undoing ? sendCompensation(saga, saga.current) : send(saga, saga.current));

  /**
   * No answer, or a failure: send again, or give up as the step's class says. Either way the step
   * is now uncertain: silence tells nothing, and a failure rolls back our writes but not what the
   * outside world (a card gateway) may have done. After silence the send goes at once (the deadline
   * was the wait); after a failure it waits for a backoff first.
   */
  function giveUpOrResend(saga: Saga, policy: SagaPolicy, why: { silent: boolean; error?: string }): Saga {
    const step = saga.current;
    const record = saga.steps[step];
    const marked = { ...saga, steps: { ...saga.steps, [step]: { ...record, uncertain: true } } };
    const cause = why.error ? `failed (${why.error})` : 'did not answer';

    const again = (next: Saga) => (why.silent ? resend(next) : { ...next, backingOff: true });

    if (saga.undoing) {
      if (record.compensationAttempts < policy.compensationAttempts) return again(marked);
      const compensation = compensationOf(step);
      return intervene(marked, `${compensation} ${cause} ${record.compensationAttempts} times`);
    }
    const kind = definitionOf(step).class;
    const limit = kind === 'pivot' ? policy.pivotAttempts : policy.stepAttempts;
    if (record.attempts < limit) return again(marked);
    switch (kind) {
      case 'pivot':
        return intervene(
          marked,
          `${step} ${cause} ${record.attempts} times: whether the money was taken is unknown; the pivot is never undone blind, and is still being asked`,
        );
      case 'retriable':
        return intervene(marked, `${step} ${cause} ${record.attempts} times`);
      default: {
        const failed = { ...marked.steps[step], status: 'FAILED' as const };
        return compensate(
          { ...marked, steps: { ...marked.steps, [step]: failed } },
          step,
          `${step} ${cause}`,
          'failed',
        );
      }
    }
  }

  function intervene(saga: Saga, why: string): Saga {
    return {
      ...saga,
      status: 'INTERVENTION',
      intervention: why,
      interruptedWhile:
        saga.status === 'INTERVENTION' ? saga.interruptedWhile : (saga.status as 'RUNNING' | 'COMPENSATING'),
    };
  }

  /** A person asked to carry on: the interrupted step (or compensation) is sent again, its count restarted. */
  function resume(saga: Saga): Saga {
    const record = saga.steps[saga.current];
    const fresh = saga.undoing ? { ...record, compensationAttempts: 0 } : { ...record, attempts: 0 };
    const reset = {
      ...saga,
      steps: { ...saga.steps, [saga.current]: fresh },
      intervention: undefined,
      interruptedWhile: undefined,
    };
    return resend(reset);
  }

  function factsOf(before: Saga, after: Saga): ProgressFact[] {
    if (before.status === after.status && before.current === after.current && before.undoing === after.undoing)
      return [];
    const resumed: ProgressFact[] =
      before.status === 'INTERVENTION' && after.status !== 'INTERVENTION' ? [{ kind: 'resumed' }] : [];
    switch (after.status) {
      case 'RUNNING':
        return [...resumed, { kind: 'reached', step: after.current }];
      case 'COMPENSATING':
        return [
          ...resumed,
          { kind: 'compensating', step: compensationOf(after.current), reason: after.reason ?? 'undone' },
        ];
      case 'COMPLETED':
        return [...resumed, { kind: 'completed' }];
      case 'COMPENSATED':
        return [
          ...resumed,
          after.outcome === 'rejected'
            ? { kind: 'rejected', reason: after.reason ?? 'rejected' }
            : { kind: 'failed', reason: after.reason ?? 'failed' },
        ];
      case 'INTERVENTION':
        return [{ kind: 'intervention', reason: after.intervention ?? 'a person must act' }];
    }
  }

  return { newSaga, evolve, decide, deadlineAfterMs, compensationOf, factsOf };
}
