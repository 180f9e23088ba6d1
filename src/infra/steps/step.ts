import type { OutgoingMessage } from '../outbox/publishing/outgoing-message';
import type { MessageContract } from '../outbox/message';

/** A step's run: its result, and whether its participant answers (false: it says nothing). */
export interface StepRun<R> {
  answered: boolean;
  result?: R;
}

/** What every input of a step names: the business process it belongs to, whose answers are about it. */
export interface StepInput {
  checkoutId: string;
}

/** What a command adds to a step's input: which send of the step it is, named back in a failure. */
export interface StepCommandInput extends StepInput {
  attempt: number;
}

/** What a participant tells an orchestrator when a command's work throws: nothing of it was kept. */
export interface StepFailure {
  checkoutId: string;
  step: string;
  error: string;
  attempt: number;
}

/**
 * One step of a business process as its participant carries it out, declared once in the step's
 * slice: everything about it that is not its use case. The runner (StepRunner) reads it to say
 * its answer, the same way in a choreography's reaction and in an
 * orchestrator's command, so that the use case knows nothing of either.
 */
export interface Step<I extends StepInput, R> {
  readonly kind?: 'step';
  /** The step's name in the saga, `<module>.<action>`. */
  readonly name: string;
  /**
   * How the step says no, for a reason: its business refusal (a declined card). A step that cannot
   * say no (an activation, an email) has none.
   */
  readonly refuse?: (reason: string) => R;
  /**
   * The message that announces a result. It may throw, where a result is a failure rather than
   * an answer. A step without one announces nothing.
   */
  readonly answer?: (input: I, result: R) => OutgoingMessage;
  /**
   * Whether the result is new (the work took effect now, not on an earlier delivery): a reaction
   * announces only new results; a command is answered every time, since its sender may have
   * missed the first answer. Without it, every result is new.
   */
  readonly isNew?: (result: R) => boolean;
  /** The event that tells an orchestrator the command's work threw. Only a step run on command has one. */
  readonly failure?: MessageContract<StepFailure>;
}

/** A step that an orchestrator can command: it has a failure to tell. */
export type CommandStep<I extends StepInput, R> = Step<I, R> & { readonly failure: MessageContract<StepFailure> };

/** The undoing of a step, declared like a step. It cannot refuse, and it always has an answer. */
export interface Compensation<I extends StepInput, R> {
  readonly kind: 'compensation';
  readonly name: string;
  /** The message that announces the undoing; it throws where the step could not be undone. */
  readonly answer: (input: I, result: R) => OutgoingMessage;
  readonly isNew: (result: R) => boolean;
  readonly failure: MessageContract<StepFailure>;
}
