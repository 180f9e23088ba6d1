/**
 * What a handler throws when retrying cannot help: the message names something that does not
 * exist here, or asks for what a rule forbids. The delivery is dead-lettered at once, with this
 * reason, instead of spending its retries (which, with a real backoff, take hours to run out);
 * an operator redrives it once the cause is fixed. Anything else a handler throws is retried.
 */
export class PermanentFailure extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentFailure';
  }
}
