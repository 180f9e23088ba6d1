import type { OutgoingMessage, MessageContract } from '../../../infra/outbox';
import { CHECKOUT_STEPS, FORWARD_STEPS, type ForwardStep, STEP_ORDER } from '../core/checkout-steps';
import type { CheckoutRow } from '../database/checkouts.repository';
import { advance, type CheckoutProgress } from '../domain/checkout';
import {
  newSaga,
  type Saga,
  type SagaCommand,
  type SagaDefinition,
  type SagaInput,
  type SagaPolicy,
} from './domain/saga';
import { decide, evolve } from './domain/saga.transitions';
import { factsOf } from './domain/saga.progress';
import { commandMessage } from './saga-commands';
import { type AnswerPayload, SAGA_ANSWERS, STEP_ATTEMPT_HEADER, STEP_GENERATION_HEADER } from './saga-answers';

/**
 * The one given/when/then of the checkout's saga, for its specs only (as emmett's
 * workflowSpecification): given what the saga has heard, when one thing more arrives (or a few),
 * then what it became, which commands that sent, the messages that carry them, and where the
 * checkout stands. What it hears is an input (a start, a deadline, a retry, an answer as the saga
 * reads it) or a participant's message, which is read as the orchestrator reads it; each step
 * of the way is played as the orchestrator plays it (`evolve`, then `decide`), with nothing stored.
 *
 * The specs that use it: the rules by inputs, state and commands, by topic (saga.forward.spec.ts,
 * saga.silence.spec.ts, saga.late-answers.spec.ts), and the saga by the messages it hears and
 * sends (saga.messages.spec.ts); saga-row.spec.ts reads its sagas into rows and back.
 */

/**
 * The policy the specs run under: three sends of a step, four of the pivot, two of a compensation,
 * six of a step that waits out outages, whose waits stop doubling at four seconds.
 */
export const SPEC_POLICY: SagaPolicy = {
  stepAttempts: 3,
  pivotAttempts: 4,
  compensationAttempts: 2,
  stepTimeoutMs: 1_000,
  outage: { attempts: 6, maxWaitMs: 4_000 },
};

/** The checkout's table of steps under the specs' policy. */
export const SPEC_SAGA: SagaDefinition = { table: CHECKOUT_STEPS, policy: SPEC_POLICY };

/** The checkout the specs' saga runs. */
export const SPEC_CHECKOUT = {
  id: '7d1c4b6e-8f0a-4d2b-9c3e-5a6b7c8d9e0f',
  user_id: '0b9e2a64-3c1d-4e5f-8a7b-6c5d4e3f2a1b',
  plan_id: 'pro-monthly',
  payment_method: 'pm_card_ok',
} as CheckoutRow;

/** A participant's message about the checkout, with the headers it arrives with. */
export interface Heard extends OutgoingMessage {
  headers?: Record<string, string>;
}

/**
 * A participant's answer about the spec's checkout; `ofSend` is the send it names back, if any,
 * and `ofGeneration` the generation of the saga that sent it, if any.
 */
export const answered = (
  contract: MessageContract,
  fields: Partial<AnswerPayload> = {},
  ofSend?: number,
  ofGeneration?: number,
): Heard => {
  const headers = {
    ...(ofSend === undefined ? {} : { [STEP_ATTEMPT_HEADER]: String(ofSend) }),
    ...(ofGeneration === undefined ? {} : { [STEP_GENERATION_HEADER]: String(ofGeneration) }),
  };
  return {
    contract,
    payload: { checkoutId: SPEC_CHECKOUT.id, ...fields },
    headers: Object.keys(headers).length === 0 ? undefined : headers,
  };
};

export interface Then {
  /** The saga before `when`. */
  before: Saga;
  /** The saga after it: the very same object when nothing changed. */
  saga: Saga;
  /** The commands `when` sent, in order. */
  commands: SagaCommand[];
  /** The messages that carry them. */
  sent: OutgoingMessage[];
  /** Their types. */
  sends: string[];
  /** The checkout's status read model after `when`. */
  checkout: CheckoutProgress;
}

interface Played {
  saga: Saga;
  checkout: CheckoutProgress;
  commands: SagaCommand[];
}

/** Plays what the saga hears, one by one, from `from`. */
function play(from: Played, heard: ReadonlyArray<SagaInput | Heard>): Played {
  return heard.reduce<Played>((played, next) => {
    const input =
      'contract' in next ? SAGA_ANSWERS.get(next.contract.type)!(next.payload as AnswerPayload, next.headers) : next;
    const saga = evolve(played.saga, input, SPEC_SAGA);
    const commands = decide(input, played.saga, SPEC_SAGA);
    const checkout = factsOf(played.saga, saga, CHECKOUT_STEPS).reduce(
      (progress, fact) => advance(progress, fact, STEP_ORDER) ?? progress,
      played.checkout,
    );
    return { saga, checkout, commands: [...played.commands, ...commands] };
  }, from);
}

/** Given what the saga has heard, from a new checkout: `saga` is where that leaves it. */
export function given(...history: Array<SagaInput | Heard>) {
  const start: Played = {
    saga: newSaga(CHECKOUT_STEPS),
    checkout: { status: 'PENDING', step: FORWARD_STEPS[0], failureReason: null },
    commands: [],
  };
  const before = play(start, history);
  return {
    saga: before.saga,
    /** ...when these arrive, then: */
    when: (...more: Array<SagaInput | Heard>): Then => {
      const after = play({ ...before, commands: [] }, more);
      const sent = after.commands.map((command) => commandMessage(SPEC_CHECKOUT, command));
      return {
        before: before.saga,
        saga: after.saga,
        commands: after.commands,
        sent,
        sends: sent.map((message) => message.contract.type),
        checkout: after.checkout,
      };
    },
  };
}

/** The rules specs' words: the forward steps, the inputs, and histories made of them. */
export const SPEC_STEPS = {
  VERIFY: 'identity.verify-user',
  AUTHORIZE: 'billing.authorize-payment',
  GRANT: 'content.grant-access',
  CAPTURE: 'billing.capture-payment',
  ACTIVATE: 'content.activate-access',
  INVOICE: 'billing.issue-invoice',
  EMAIL: 'notifications.send-welcome-email',
} as const;

export const done = (step: ForwardStep, undoing = false): SagaInput => ({ type: 'done', step, undoing });
export const refused = (step: ForwardStep, reason: string, attempt?: number, generation?: number): SagaInput => ({
  type: 'refused',
  step,
  reason,
  attempt,
  generation,
});
export const start: SagaInput = { type: 'start' };
export const deadline: SagaInput = { type: 'deadline' };
export const retry: SagaInput = { type: 'retry' };
export const times = (n: number, input: SagaInput) => Array.from({ length: n }, () => input);
/** Started, and every step before `step` done. */
export const upTo = (step: ForwardStep) => {
  const order: readonly ForwardStep[] = Object.values(SPEC_STEPS);
  return [start, ...order.slice(0, order.indexOf(step)).map((s) => done(s))];
};
