import {
  DeadLetterRedriven,
  type MessageContract,
  MessageDeadLettered,
  type MessageDeadLetteredPayload,
  type MessageType,
} from '../../../infra/outbox';
import { CHECKOUT_STEPS, type CheckoutStepRow } from '../core/checkout-steps';
import type { ProgressFact } from '../domain/checkout';

export type Payload = {
  checkoutId?: string;
  aggregateId?: string;
  reason?: string;
} & Partial<MessageDeadLetteredPayload>;

/** An event's contract, with the progress fact it is read as. */
type FactOfEvent = [MessageContract<Payload>, (payload: Payload) => ProgressFact];

const ROWS: readonly CheckoutStepRow[] = CHECKOUT_STEPS;

/**
 * Where a choreography goes once the steps before `index` have to be undone: each compensable
 * step reacts to the undoing of the one after it, so the next compensation is the latest
 * compensable step's; with none left, the checkout has failed.
 */
function undoFrom(index: number, reason: string): ProgressFact {
  const undone = ROWS.slice(0, index).findLast((row) => row.compensation);
  return undone ? { kind: 'compensating', step: undone.compensation!.name, reason } : { kind: 'failed', reason };
}

/** What a step's events mean for the progress of a choreographed checkout. */
function factsOfStep(row: CheckoutStepRow, index: number): FactOfEvent[] {
  const next = ROWS[index + 1];
  const facts: FactOfEvent[] = [
    [row.done, () => (next ? { kind: 'reached', step: next.name } : { kind: 'completed' })],
  ];
  if (row.refused) {
    // A refused check rejects the buyer; a refusal later undoes what was done before it.
    const refused = (p: Payload): ProgressFact =>
      row.class === 'verify' ? { kind: 'rejected', reason: p.reason! } : undoFrom(index, p.reason!);
    facts.push([row.refused, refused]);
  }
  if (row.compensation) facts.push([row.compensation.done, (p) => undoFrom(index, p.reason!)]);
  return facts;
}

const FACTS_OF_EVENTS: FactOfEvent[] = [
  ...ROWS.flatMap(factsOfStep),
  [
    MessageDeadLettered,
    (p) => ({
      kind: 'intervention',
      reason: `${p.consumer} gave up on ${p.type} after ${p.attempts} attempt(s): ${p.error}`,
    }),
  ],
  [DeadLetterRedriven, () => ({ kind: 'resumed' })],
];

/**
 * What each event means for the progress of a choreographed checkout, by message type, read from
 * the checkout's table of steps: a step done reaches the next one (the last completes it), a
 * refusal rejects or starts undoing, a compensation done undoes the step before. Automation
 * giving up (a dead letter) puts it in intervention; a redrive resumes it.
 */
export const PROGRESS_FACTS: ReadonlyMap<string, (payload: Payload) => ProgressFact> = new Map(
  FACTS_OF_EVENTS.map(([contract, factOf]) => [contract.type, factOf]),
);

/** The types of the events the progress of a choreographed checkout is read from. */
export const PROGRESS_TYPES: MessageType<Payload>[] = FACTS_OF_EVENTS.map(([contract]) => contract.type);
