/**
 * What a handler throws when its work failed but it has something to say about it (a command's
 * failure answer): everything the handler wrote is undone with the transaction, and the inbox
 * commits `answer`'s writes with the delivery's inbox row instead, in a transaction of its own.
 * The work is not run again for it; the message counts as handled. It spares the handler a
 * savepoint around its work, which every delivery would pay for and only a failing one needs.
 */
export class AnsweredFailure extends Error {
  constructor(
    cause: unknown,
    /** Writes the answer, in the delivery's context and transaction (an outbox publish). */
    readonly answer: () => Promise<unknown>,
  ) {
    super(`The work failed, and is answered: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'AnsweredFailure';
  }
}
