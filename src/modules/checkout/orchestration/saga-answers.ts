import type { MessageContract, MessageType } from '../../../infra/outbox';
import type { StepFailedPayload } from '../contracts';
import { CHECKOUT_STEPS, type CheckoutStepRow, rowOf } from '../core/checkout-steps';
import type { Answer } from './domain/saga';

/** What a participant's answer carries in its payload that the saga reads. */
export type AnswerPayload = { checkoutId: string; reason?: string } & Partial<StepFailedPayload>;

/**
 * Which send of a step a command is. The orchestrator sets it on every command; the participant's
 * answer carries it back, as every message carries on the headers of the one that caused it. A
 * failure names its send in its payload too; a refusal, an event of the participant's own that the
 * choreography shares, only here.
 */
export const STEP_ATTEMPT_HEADER = 'step-attempt';

/**
 * Which generation of the saga sent a command: how many times an operator had retried it. A retry
 * counts the sends again from 1; the generation, carried back the same way, tells an answer to a
 * send from before the retry from one to a send after it.
 */
export const STEP_GENERATION_HEADER = 'step-generation';

/** The number a header names, if it names one of at least `least`. */
function numberIn(headers: Record<string, string> | undefined, name: string, least: number): number | undefined {
  const value = Number(headers?.[name]);
  return headers?.[name] !== undefined && Number.isInteger(value) && value >= least ? value : undefined;
}

/** The send an answer names back, and the generation that sent it, if it names them. */
const sendOf = (headers: Record<string, string> | undefined) => ({
  attempt: numberIn(headers, STEP_ATTEMPT_HEADER, 1),
  generation: numberIn(headers, STEP_GENERATION_HEADER, 0),
});

/** A failure names the action or the compensation that failed; the saga knows steps by their action. */
function failedAnswer({ step: executed, error, attempt }: AnswerPayload, headers?: Record<string, string>): Answer {
  const row = rowOf(executed!);
  const { generation } = sendOf(headers);
  return { type: 'failed', step: row.name, undoing: row.name !== executed, error: error!, attempt, generation };
}

/** How the saga reads an answer's payload and headers. */
type ReadAnswer = (payload: AnswerPayload, headers?: Record<string, string>) => Answer;

/** An answer's contract, with how the saga reads it. */
type AnswerOfStep = [MessageContract<AnswerPayload>, ReadAnswer];

/** A step's answers. */
function answersOf(row: CheckoutStepRow): AnswerOfStep[] {
  const answers: AnswerOfStep[] = [[row.done, () => ({ type: 'done', step: row.name })]];
  if (row.refused) {
    const refused: ReadAnswer = (r, headers) => ({
      type: 'refused',
      step: row.name,
      reason: r.reason!,
      ...sendOf(headers),
    });
    answers.push([row.refused, refused]);
  }
  if (row.compensation) answers.push([row.compensation.done, () => ({ type: 'done', step: row.name, undoing: true })]);
  answers.push([row.failed, failedAnswer]);
  return answers;
}

const ANSWERS = (CHECKOUT_STEPS as readonly CheckoutStepRow[]).flatMap(answersOf);

/**
 * What each answer means to the saga, by message type, read from the checkout's table: a step's
 * done, refused and failed events, and its compensation's done. A participant has one failure
 * event for all its steps; its payload names the step. An answer's headers say which send it
 * answers, and which generation sent it.
 */
export const SAGA_ANSWERS: ReadonlyMap<string, ReadAnswer> = new Map(
  ANSWERS.map(([contract, read]) => [contract.type, read]),
);

/** The types of the answers the orchestrator listens to. */
export const SAGA_ANSWER_TYPES: MessageType<AnswerPayload>[] = [...new Set(ANSWERS.map(([contract]) => contract.type))];
