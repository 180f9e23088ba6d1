import type { MessageContract } from './message';

/** A message to publish as the answer to a command, checked against its contract when made. */
export interface Answer {
  contract: MessageContract;
  payload: object;
}

export const answer = <P extends object>(contract: MessageContract<P>, payload: P): Answer => ({
  contract: contract as MessageContract,
  payload,
});
