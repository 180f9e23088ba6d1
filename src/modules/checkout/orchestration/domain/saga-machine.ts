import type { CheckoutStep, ProgressFact, StepDefinition } from '../../domain/checkout';

/**
 * The orchestrated checkout as a pure state machine over a table of steps: `evolve` says what a
 * saga becomes when it learns something and which commands that calls for, `deadlineAfterMs` how
 * soon it must have heard back. Nothing here touches a database or a queue; the runner
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
interface Position {
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
type Interrupted<S extends Running | Compensating> = Omit<S, 'status'> & {
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

/** What the saga can learn. `step` is the step the message is about (an action's, even for its compensation). */
export type SagaInput =
  | { type: 'start' }
  /** The step was done; with `undoing`, its compensation was. */
  | { type: 'done'; step: CheckoutStep; undoing?: boolean }
  /**
   * A definitive business "no" to send `attempt` of `generation` (when it says which): that send
   * had no effect.
   */
  | { type: 'refused'; step: CheckoutStep; reason: string; attempt?: number; generation?: number }
  /** The participant tried and failed (its writes rolled back; an outside effect may remain). */
  | { type: 'failed'; step: CheckoutStep; undoing?: boolean; error: string; attempt?: number; generation?: number }
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

/** What one input does: the saga it leaves, and the commands it sends on the way (none, or one). */
export interface Transition<S extends Saga = Saga> {
  saga: S;
  commands: SagaCommand[];
}

/** The operations of a saga over one table of steps. */
export interface SagaMachine {
  /** A saga not started yet: every step pending. */
  newSaga(): Running;
  /**
   * What learning `input` does: the saga it becomes, and the commands that calls for (the next
   * send, if the saga moved or must resend), made as the transition is. An answer about anything
   * but the current send of the current step changes nothing: the same saga comes back.
   */
  evolve(saga: Saga, input: SagaInput, policy: SagaPolicy): Transition;
  /** How long after now the saga must have heard about its current send; none when it waits for nothing. */
  deadlineAfterMs(saga: Saga, policy: SagaPolicy): number | undefined;
  /** The compensation that undoes a compensable step. */
  compensationOf(step: CheckoutStep): CheckoutStep;
  /** What a transition means for the checkout's status read model. */
  factsOf(before: Saga, after: Saga): ProgressFact[];
}

/** Longest wait between two sends, in step timeouts: 2^6. */
const MAX_BACKOFF_EXPONENT = 6;

/** A status that the switch over statuses did not handle: the compiler says so first. */
function unknownStatus(saga: never): never {
  throw new Error(`A saga in an unknown status: ${JSON.stringify(saga)}`);
}

const stay = (saga: Saga): Transition => ({ saga, commands: [] });

const withStep = (saga: Position, step: CheckoutStep, change: Partial<StepRecord>): Position['steps'] => ({
  ...saga.steps,
  [step]: { ...saga.steps[step], ...change },
});

/** What a saga in intervention was doing: it carries on from there. */
function settle(saga: Intervention): Running | Compensating {
  const { current, steps, generation, backingOff } = saga;
  if (saga.interruptedWhile === 'RUNNING') return { status: 'RUNNING', current, steps, generation, backingOff };
  const { toUndo, outcome, reason } = saga;
  return { status: 'COMPENSATING', current, steps, generation, backingOff, toUndo, outcome, reason };
}

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
    switch (saga.status) {
      case 'RUNNING':
      case 'COMPENSATING':
        return true;
      case 'INTERVENTION':
        return (
          saga.interruptedWhile === 'RUNNING' &&
          definitionOf(saga.current).class === 'pivot' &&
          saga.steps[saga.current].status === 'STARTED'
        );
      case 'COMPLETED':
      case 'COMPENSATED':
        return false;
      default:
        return unknownStatus(saga);
    }
  }

  function newSaga(): Running {
    const steps = Object.fromEntries(
      table.map(({ name }) => [
        name,
        { status: 'PENDING', attempts: 0, compensationAttempts: 0, uncertain: false } satisfies StepRecord,
      ]),
    );
    return { status: 'RUNNING', current: table[0].name, steps, generation: 0, backingOff: false };
  }

  function evolve(saga: Saga, input: SagaInput, policy: SagaPolicy): Transition {
    switch (input.type) {
      case 'start':
        return saga.status === 'RUNNING' && saga.steps[saga.current].attempts === 0
          ? send(saga, saga.current)
          : stay(saga);
      case 'retry':
        return saga.status === 'INTERVENTION' ? resume(saga) : stay(saga);
      case 'deadline':
        switch (saga.status) {
          case 'RUNNING':
          case 'COMPENSATING':
            // After a failure, the deadline was the backoff: now send again. Otherwise it is silence.
            return saga.backingOff ? resend(saga) : giveUpOrResend(saga, policy, { silent: true });
          case 'INTERVENTION':
            // The pivot in intervention is sent again, and still waits for a person (or its answer).
            return saga.interruptedWhile === 'RUNNING' && keepsTrying(saga) ? askAgain(saga) : stay(saga);
          default:
            return stay(saga);
        }
    }
    if (saga.status === 'COMPLETED' || saga.status === 'COMPENSATED') return stay(saga);
    // A late answer can settle an intervention: the saga then carries on from it.
    const active = saga.status === 'INTERVENTION' ? settle(saga) : saga;
    if (input.step !== active.current) return stay(saga);
    // A refusal or a failure of an earlier send than the current one, or of a send from before an
    // operator's retry, says nothing of the current send, which is still to answer. A done answer
    // of any send is the step's effect: it counts.
    const superseded = (attempt?: number) =>
      isStale(saga, input) || (attempt !== undefined && attempt < sendsOf(active));
    switch (input.type) {
      case 'done':
        if (active.status === 'RUNNING' && !input.undoing) return done(active);
        if (active.status === 'COMPENSATING' && input.undoing) return undone(active);
        return stay(saga);
      case 'refused':
        if (active.status !== 'RUNNING' || superseded(input.attempt)) return stay(saga);
        return refused(active, input.reason);
      case 'failed':
        if ((active.status === 'COMPENSATING') !== Boolean(input.undoing) || superseded(input.attempt)) {
          return stay(saga);
        }
        // Known already: a repeat of the failure the saga is backing off from.
        if (active.backingOff) return stay(saga);
        return giveUpOrResend(active, policy, { silent: false, error: input.error });
    }
  }

  /**
   * How long after now the saga must have heard about its current send; none when it waits for
   * nothing. A wait, not a moment: the database adds it to its own clock, so that deadlines are set
   * and compared by one clock however far an app host's drifts.
   */
  function deadlineAfterMs(saga: Saga, policy: SagaPolicy): number | undefined {
    if (!keepsTrying(saga)) return undefined;
    return policy.stepTimeoutMs * 2 ** Math.min(Math.max(0, sendsOf(saga) - 1), MAX_BACKOFF_EXPONENT);
  }

  /** Sends `step`'s command: the saga runs it. */
  function send(saga: Position, step: CheckoutStep): Transition<Running> {
    const attempt = saga.steps[step].attempts + 1;
    return {
      saga: {
        status: 'RUNNING',
        current: step,
        steps: withStep(saga, step, { status: 'STARTED', attempts: attempt }),
        generation: saga.generation,
        backingOff: false,
      },
      commands: [{ step, kind: 'action', executes: step, attempt }],
    };
  }

  /** Sends the compensation of `step`, the first of `toUndo`: the saga undoes it. */
  function sendCompensation(saga: Omit<Compensating, 'status' | 'backingOff'>, step: CheckoutStep): Transition {
    const attempt = saga.steps[step].compensationAttempts + 1;
    const { toUndo, outcome, reason } = saga;
    return {
      saga: {
        status: 'COMPENSATING',
        current: step,
        steps: withStep(saga, step, { status: 'COMPENSATING', compensationAttempts: attempt }),
        generation: saga.generation,
        toUndo,
        outcome,
        reason,
        backingOff: false,
      },
      commands: [{ step, kind: 'compensation', executes: compensationOf(step), attempt, reason }],
    };
  }

  function done(saga: Running): Transition {
    const steps = withStep(saga, saga.current, { status: 'DONE' });
    const next = table[table.findIndex((d) => d.name === saga.current) + 1];
    const { current, generation } = saga;
    if (!next) return stay({ status: 'COMPLETED', current, steps, generation, outcome: 'completed' });
    return send({ current, steps, generation }, next.name);
  }

  function undone(saga: Compensating): Transition {
    const steps = withStep(saga, saga.current, { status: 'COMPENSATED' });
    return compensateNext({ ...saga, steps, toUndo: saga.toUndo.slice(1) });
  }

  /** Undoes the next step on the list, or ends the saga when nothing is left to undo. */
  function compensateNext(saga: Omit<Compensating, 'status' | 'backingOff'>): Transition {
    const [next] = saga.toUndo;
    if (next) return sendCompensation(saga, next);
    const { current, steps, generation, outcome, reason } = saga;
    return stay({ status: 'COMPENSATED', current, steps, generation, outcome, reason });
  }

  /**
   * Starts undoing, in reverse order, every compensable step that took effect before `failed`,
   * and `failed` itself when it may have taken effect.
   */
  function compensate(saga: Position, reason: string, outcome: 'rejected' | 'failed'): Transition {
    const failed = saga.current;
    const index = table.findIndex((d) => d.name === failed);
    const toUndo = table
      .slice(0, index + 1)
      .filter(({ name, class: kind }) => {
        const record = saga.steps[name];
        return kind === 'compensable' && (record.status === 'DONE' || (name === failed && record.uncertain));
      })
      .map(({ name }) => name)
      .reverse();
    return compensateNext({ current: failed, steps: saga.steps, generation: saga.generation, toUndo, outcome, reason });
  }

  function refused(saga: Running, reason: string): Transition {
    const step = saga.current;
    // A refusal answers this send; if an earlier one went unanswered, the step stays uncertain
    // (and is undone with the others: its compensation accepts "never happened").
    const failed: Running = { ...saga, steps: withStep(saga, step, { status: 'FAILED' }) };
    const kind = definitionOf(step).class;
    if (kind === 'retriable') return intervene(failed, `${step} refused after the pivot: ${reason}`);
    return compensate(failed, reason, kind === 'verify' ? 'rejected' : 'failed');
  }

  const resend = (saga: Running | Compensating): Transition =>
    saga.status === 'COMPENSATING' ? sendCompensation(saga, saga.current) : send(saga, saga.current);

  /** The pivot in intervention asked again: it still waits for a person, or for its answer. */
  function askAgain(saga: Interrupted<Running>): Transition {
    const { saga: sent, commands } = send(saga, saga.current);
    return {
      saga: { ...sent, status: 'INTERVENTION', interruptedWhile: 'RUNNING', intervention: saga.intervention },
      commands,
    };
  }

  /**
   * No answer, or a failure: send again, or give up as the step's class says. Either way the step
   * is now uncertain: silence tells nothing, and a failure rolls back our writes but not what the
   * outside world (a card gateway) may have done. After silence the send goes at once (the deadline
   * was the wait); after a failure it waits for a backoff first.
   */
  function giveUpOrResend(
    saga: Running | Compensating,
    policy: SagaPolicy,
    why: { silent: boolean; error?: string },
  ): Transition {
    const step = saga.current;
    const record = saga.steps[step];
    const steps = withStep(saga, step, { uncertain: true });
    const cause = why.error ? `failed (${why.error})` : 'did not answer';
    const again = (next: Running | Compensating) => (why.silent ? resend(next) : stay({ ...next, backingOff: true }));

    if (saga.status === 'COMPENSATING') {
      const marked: Compensating = { ...saga, steps };
      if (record.compensationAttempts < policy.compensationAttempts) return again(marked);
      return intervene(marked, `${compensationOf(step)} ${cause} ${record.compensationAttempts} times`);
    }
    const marked: Running = { ...saga, steps };
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
      default:
        return compensate(
          { current: step, steps: withStep(marked, step, { status: 'FAILED' }), generation: marked.generation },
          `${step} ${cause}`,
          'failed',
        );
    }
  }

  function intervene(saga: Running | Compensating, why: string): Transition {
    const stopped: Intervention =
      saga.status === 'RUNNING'
        ? { ...saga, status: 'INTERVENTION', interruptedWhile: 'RUNNING', intervention: why }
        : { ...saga, status: 'INTERVENTION', interruptedWhile: 'COMPENSATING', intervention: why };
    return stay(stopped);
  }

  /**
   * A person asked to carry on: the interrupted step (or compensation) is sent again, its count
   * restarted, in a new generation, so that answers to the sends before stay told apart.
   */
  function resume(saga: Intervention): Transition {
    const interrupted = settle(saga);
    const restart: Partial<StepRecord> =
      interrupted.status === 'COMPENSATING' ? { compensationAttempts: 0 } : { attempts: 0 };
    const steps = withStep(interrupted, interrupted.current, restart);
    return resend({ ...interrupted, steps, generation: interrupted.generation + 1 });
  }

  function factsOf(before: Saga, after: Saga): ProgressFact[] {
    if (before.status === after.status && before.current === after.current && isUndoing(before) === isUndoing(after))
      return [];
    const resumed: ProgressFact[] =
      before.status === 'INTERVENTION' && after.status !== 'INTERVENTION' ? [{ kind: 'resumed' }] : [];
    switch (after.status) {
      case 'RUNNING':
        return [...resumed, { kind: 'reached', step: after.current }];
      case 'COMPENSATING':
        return [...resumed, { kind: 'compensating', step: compensationOf(after.current), reason: after.reason }];
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

  return { newSaga, evolve, deadlineAfterMs, compensationOf, factsOf };
}
