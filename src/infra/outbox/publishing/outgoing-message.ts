import type { MessageContract } from '../message';

/**
 * A message to publish, its payload typed by its contract when made: a step's answer (an event),
 * or a command the saga sends. The outbox publisher checks it against the contract.
 */
export interface OutgoingMessage {
  contract: MessageContract;
  payload: object;
}

export const outgoing = <P extends object>(contract: MessageContract<P>, payload: P): OutgoingMessage => ({
  contract: contract as MessageContract,
  payload,
});
