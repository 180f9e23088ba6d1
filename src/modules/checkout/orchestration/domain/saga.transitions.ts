import type { CheckoutStep, StepDefinition } from '../../domain/checkout';
import {
  type Answer,
  type Compensating,
  compensationOf,
  definitionOf,
  type Interrupted,
  type Intervention,
  isStale,
  type Position,
  type Running,
  type Saga,
  type SagaCommand,
  type SagaDefinition,
  type SagaInput,
  sendsOf,
  type StepRecord,
} from './saga';
import { keepsTrying } from './saga.deadline';

/**
 * The saga's rules. What one input does is a transition: the saga it leaves, and the commands it
 * sends on the way (none, or one), each made where the rule sends it (`send`, `sendCompensation`),
 * never inferred afterwards from a diff of two states (ADR 0077). `evolve` and `decide` are its
 * two halves, as emmett's workflows name them.
 */
interface Transition<S extends Saga = Saga> {
  saga: S;
  commands: SagaCommand[];
}

/**
 * What the saga becomes when it learns `input`. An answer about anything but the current send of
 * the current step changes nothing: the same saga comes back.
 */
export const evolve = (saga: Saga, input: SagaInput, definition: SagaDefinition): Saga =>
  transition(saga, input, definition).saga;

/** The commands `input` calls for: the send the saga makes on learning it, if it makes one. */
export const decide = (input: SagaInput, saga: Saga, definition: SagaDefinition): SagaCommand[] =>
  transition(saga, input, definition).commands;

function transition(saga: Saga, input: SagaInput, definition: SagaDefinition): Transition {
  switch (input.type) {
    case 'start':
      return saga.status === 'RUNNING' && saga.steps[saga.current].attempts === 0
        ? send(saga, saga.current)
        : stay(saga);
    case 'retry':
      return saga.status === 'INTERVENTION' ? resume(saga, definition.table) : stay(saga);
    case 'deadline':
      return deadlinePassed(saga, definition);
    default:
      return answered(saga, input, definition);
  }
}

function deadlinePassed(saga: Saga, definition: SagaDefinition): Transition {
  switch (saga.status) {
    case 'RUNNING':
    case 'COMPENSATING':
      // After a failure, the deadline was the backoff: now send again. Otherwise it is silence.
      return saga.backingOff ? resend(saga, definition.table) : giveUpOrResend(saga, definition, { silent: true });
    case 'INTERVENTION':
      // The pivot in intervention is sent again, and still waits for a person (or its answer).
      return saga.interruptedWhile === 'RUNNING' && keepsTrying(saga, definition.table) ? askAgain(saga) : stay(saga);
    default:
      return stay(saga);
  }
}

function answered(saga: Saga, answer: Answer, definition: SagaDefinition): Transition {
  if (saga.status === 'COMPLETED' || saga.status === 'COMPENSATED') return stay(saga);
  // A late answer can settle an intervention: the saga then carries on from it.
  const active = saga.status === 'INTERVENTION' ? settle(saga) : saga;
  if (answer.step !== active.current) return stay(saga);
  // A refusal or a failure of an earlier send than the current one, or of a send from before an
  // operator's retry, says nothing of the current send, which is still to answer. A done answer
  // of any send is the step's effect: it counts.
  const superseded = (attempt?: number) =>
    isStale(saga, answer) || (attempt !== undefined && attempt < sendsOf(active));
  switch (answer.type) {
    case 'done':
      if (active.status === 'RUNNING' && !answer.undoing) return done(active, definition.table);
      if (active.status === 'COMPENSATING' && answer.undoing) return undone(active, definition.table);
      return stay(saga);
    case 'refused':
      if (active.status !== 'RUNNING' || superseded(answer.attempt)) return stay(saga);
      return refused(active, answer.reason, definition.table);
    case 'failed':
      if ((active.status === 'COMPENSATING') !== Boolean(answer.undoing) || superseded(answer.attempt)) {
        return stay(saga);
      }
      // Known already: a repeat of the failure the saga is backing off from.
      if (active.backingOff) return stay(saga);
      return giveUpOrResend(active, definition, { silent: false, error: answer.error });
  }
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
function sendCompensation(
  saga: Omit<Compensating, 'status' | 'backingOff'>,
  step: CheckoutStep,
  table: readonly StepDefinition[],
): Transition {
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
    commands: [{ step, kind: 'compensation', executes: compensationOf(step, table), attempt, reason }],
  };
}

function done(saga: Running, table: readonly StepDefinition[]): Transition {
  const steps = withStep(saga, saga.current, { status: 'DONE' });
  const next = table[table.findIndex((d) => d.name === saga.current) + 1];
  const { current, generation } = saga;
  if (!next) return stay({ status: 'COMPLETED', current, steps, generation, outcome: 'completed' });
  return send({ current, steps, generation }, next.name);
}

function undone(saga: Compensating, table: readonly StepDefinition[]): Transition {
  const steps = withStep(saga, saga.current, { status: 'COMPENSATED' });
  return compensateNext({ ...saga, steps, toUndo: saga.toUndo.slice(1) }, table);
}

/** Undoes the next step on the list, or ends the saga when nothing is left to undo. */
function compensateNext(
  saga: Omit<Compensating, 'status' | 'backingOff'>,
  table: readonly StepDefinition[],
): Transition {
  const [next] = saga.toUndo;
  if (next) return sendCompensation(saga, next, table);
  const { current, steps, generation, outcome, reason } = saga;
  return stay({ status: 'COMPENSATED', current, steps, generation, outcome, reason });
}

/**
 * Starts undoing, in reverse order, every compensable step that took effect before `failed`,
 * and `failed` itself when it may have taken effect.
 */
function compensate(
  saga: Position,
  reason: string,
  outcome: 'rejected' | 'failed',
  table: readonly StepDefinition[],
): Transition {
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
  const { steps, generation } = saga;
  return compensateNext({ current: failed, steps, generation, toUndo, outcome, reason }, table);
}

function refused(saga: Running, reason: string, table: readonly StepDefinition[]): Transition {
  const step = saga.current;
  // A refusal answers this send; if an earlier one went unanswered, the step stays uncertain
  // (and is undone with the others: its compensation accepts "never happened").
  const failed: Running = { ...saga, steps: withStep(saga, step, { status: 'FAILED' }) };
  const kind = definitionOf(step, table).class;
  if (kind === 'retriable') return intervene(failed, `${step} refused after the pivot: ${reason}`);
  return compensate(failed, reason, kind === 'verify' ? 'rejected' : 'failed', table);
}

const resend = (saga: Running | Compensating, table: readonly StepDefinition[]): Transition =>
  saga.status === 'COMPENSATING' ? sendCompensation(saga, saga.current, table) : send(saga, saga.current);

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
  { table, policy }: SagaDefinition,
  why: { silent: boolean; error?: string },
): Transition {
  const step = saga.current;
  const record = saga.steps[step];
  const steps = withStep(saga, step, { uncertain: true });
  const cause = why.error ? `failed (${why.error})` : 'did not answer';
  const again = (next: Running | Compensating) =>
    why.silent ? resend(next, table) : stay({ ...next, backingOff: true });

  if (saga.status === 'COMPENSATING') {
    const marked: Compensating = { ...saga, steps };
    if (record.compensationAttempts < policy.compensationAttempts) return again(marked);
    return intervene(marked, `${compensationOf(step, table)} ${cause} ${record.compensationAttempts} times`);
  }
  const marked: Running = { ...saga, steps };
  const { class: kind, waitsOutOutages } = definitionOf(step, table);
  const limit = waitsOutOutages
    ? policy.outage.attempts
    : kind === 'pivot'
      ? policy.pivotAttempts
      : policy.stepAttempts;
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
        table,
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
function resume(saga: Intervention, table: readonly StepDefinition[]): Transition {
  const interrupted = settle(saga);
  const restart: Partial<StepRecord> =
    interrupted.status === 'COMPENSATING' ? { compensationAttempts: 0 } : { attempts: 0 };
  const steps = withStep(interrupted, interrupted.current, restart);
  return resend({ ...interrupted, steps, generation: interrupted.generation + 1 }, table);
}
