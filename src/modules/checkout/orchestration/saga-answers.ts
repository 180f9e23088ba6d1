import type { MessageContract } from '../../../infra/outbox';
import type { StepFailedPayload } from '../contracts';
import { CHECKOUT_STEPS, type CheckoutStepRow, rowOf } from '../core/checkout-steps';
import { sagaMachine, type SagaInput } from './domain/checkout.saga';

/** The checkout's saga: the state machine over the checkout's table of steps. */
export const CHECKOUT_SAGA = sagaMachine(CHECKOUT_STEPS);

/** What a participant's answer carries that the saga reads. */
export type Reply = { checkoutId: string; reason?: string } & Partial<StepFailedPayload>;

/** A failure names the action or the compensation that failed; the saga knows steps by their action. */
function failedInput({ step: executed, error, attempt }: Reply): SagaInput {
  const row = rowOf(executed!);
  return { type: 'failed', step: row.name, undoing: row.name !== executed, error: error!, attempt };
}

type Meaning = [MessageContract, (reply: Reply) => SagaInput];

function meaningsOf(row: CheckoutStepRow): Meaning[] {
  const meanings: Meaning[] = [[row.done, () => ({ type: 'done', step: row.name })]];
  if (row.refused) meanings.push([row.refused, (r) => ({ type: 'refused', step: row.name, reason: r.reason! })]);
  if (row.compensation) meanings.push([row.compensation.done, () => ({ type: 'done', step: row.name, undoing: true })]);
  meanings.push([row.failed, failedInput]);
  return meanings;
}

const MEANINGS = (CHECKOUT_STEPS as readonly CheckoutStepRow[]).flatMap(meaningsOf);

/**
 * What each answer means to the saga, by message type, read from the checkout's table: a step's
 * done, refused and failed events, and its compensation's done. A participant has one failure
 * event for all its steps; its payload names the step.
 */
export const SAGA_ANSWERS: ReadonlyMap<string, (reply: Reply) => SagaInput> = new Map(
  MEANINGS.map(([contract, meaning]) => [contract.type, meaning]),
);

/** The answers the orchestrator listens to. */
export const SAGA_ANSWER_CONTRACTS: MessageContract[] = [...new Set(MEANINGS.map(([contract]) => contract))];
