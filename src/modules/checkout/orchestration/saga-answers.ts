import type { MessageContract, MessageType } from '../../../infra/outbox';
import type { StepFailedPayload } from '../contracts';
import { CHECKOUT_STEPS, type CheckoutStepRow, rowOf } from '../core/checkout-steps';
import type { SagaInput } from './domain/saga-machine';

/** What a participant's answer carries that the saga reads. */
export type Reply = { checkoutId: string; reason?: string } & Partial<StepFailedPayload>;

/**
 * Which send of a step a command is. The orchestrator sets it on every command; the participant's
 * answer carries it back, as every message carries on the headers of the one that caused it. A
 * failure names its send in its payload too; a refusal, an event of the participant's own that the
 * choreography shares, only here.
 */
export const STEP_ATTEMPT_HEADER = 'step-attempt';

/** The send an answer names back, if it names one. */
function attemptOf(headers: Record<string, string> | undefined): number | undefined {
  const attempt = Number(headers?.[STEP_ATTEMPT_HEADER]);
  return Number.isInteger(attempt) && attempt >= 1 ? attempt : undefined;
}

/** A failure names the action or the compensation that failed; the saga knows steps by their action. */
function failedInput({ step: executed, error, attempt }: Reply): SagaInput {
  const row = rowOf(executed!);
  return { type: 'failed', step: row.name, undoing: row.name !== executed, error: error!, attempt };
}

type Meaning = [MessageContract<Reply>, (reply: Reply, headers?: Record<string, string>) => SagaInput];

function meaningsOf(row: CheckoutStepRow): Meaning[] {
  const meanings: Meaning[] = [[row.done, () => ({ type: 'done', step: row.name })]];
  if (row.refused) {
    const refused = (r: Reply, headers?: Record<string, string>): SagaInput => ({
      type: 'refused',
      step: row.name,
      reason: r.reason!,
      attempt: attemptOf(headers),
    });
    meanings.push([row.refused, refused]);
  }
  if (row.compensation) meanings.push([row.compensation.done, () => ({ type: 'done', step: row.name, undoing: true })]);
  meanings.push([row.failed, failedInput]);
  return meanings;
}

const MEANINGS = (CHECKOUT_STEPS as readonly CheckoutStepRow[]).flatMap(meaningsOf);

/**
 * What each answer means to the saga, by message type, read from the checkout's table: a step's
 * done, refused and failed events, and its compensation's done. A participant has one failure
 * event for all its steps; its payload names the step. An answer's headers say which send it answers.
 */
export const SAGA_ANSWERS: ReadonlyMap<string, (reply: Reply, headers?: Record<string, string>) => SagaInput> = new Map(
  MEANINGS.map(([contract, meaning]) => [contract.type, meaning]),
);

/** The types of the answers the orchestrator listens to. */
export const SAGA_ANSWER_TYPES: MessageType<Reply>[] = [...new Set(MEANINGS.map(([contract]) => contract.type))];
