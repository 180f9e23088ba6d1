import { Injectable, Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '../database/database-unavailable';
import { describeError } from '../errors';
import { Hooks } from '../hooks/hooks';
import type { OutgoingMessage } from '../outbox/publishing/outgoing-message';
import { AnsweredFailure } from '../outbox/consuming/answered-failure';
import { OutboxPublisher } from '../outbox/publishing/outbox.publisher';
import type { CommandStep, Compensation, Step, StepCommandInput, StepInput, StepRun } from './step';

/**
 * Carries out a participant's steps, as its reactions and command handlers ask, the same way for
 * every step: its work, then its answer, published in the delivery's transaction on the process's
 * aggregate. The use cases know nothing of answers, and their adapters only map a message to the
 * step's input.
 */
@Injectable()
export class StepRunner {
  private readonly logger = new Logger('StepRunner');

  constructor(
    private readonly outbox: OutboxPublisher,
    private readonly hooks: Hooks,
  ) {}

  /**
   * Choreography: a reaction runs the step and announces its result only when the result is new,
   * so that a repeated event changes nothing and says nothing twice. Errors are left to the
   * transport's retries: in a choreography there is no one to tell. Answers the run, for the rare
   * reaction that looks at the result itself.
   */
  async react<I extends StepInput, R>(
    step: Step<I, R> | Compensation<I, R>,
    input: I,
    work: () => Promise<R>,
  ): Promise<StepRun<R>> {
    const run = await this.perform(step, work);
    if (!run.answered || run.result === undefined || !step.answer) return run;
    // Made before it is known to be new: making it is where a result that is a failure throws.
    const reply = step.answer(input, run.result);
    if (step.isNew?.(run.result) ?? true) await this.publish(reply, input.checkoutId);
    return run;
  }

  /**
   * Orchestration: the work runs in the delivery's transaction and is answered every time (the
   * orchestrator may have missed the first answer), unless the run says its participant answers
   * nothing. If the work throws, its writes are undone and the step's failure answers instead,
   * committed with the inbox row (AnsweredFailure), so that the orchestrator (which knows the
   * process) decides whether to retry, undo or ask a person. Postgres out of reach is not the
   * step's failure: it is left to the transport, which postpones the delivery.
   */
  async command<I extends StepInput, R>(
    step: CommandStep<I, R> | Compensation<I, R>,
    command: NoInfer<I> & StepCommandInput,
    work: () => Promise<R>,
  ): Promise<void> {
    try {
      const run = await this.perform(step, work);
      if (run.answered && run.result !== undefined && step.answer) {
        await this.publish(step.answer(command, run.result), command.checkoutId);
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      this.logger.warn(`A command failed; its sender is told: ${describeError(error)}`);
      const { checkoutId, attempt } = command;
      throw new AnsweredFailure(error, () =>
        this.outbox.publish(
          step.failure,
          { checkoutId, step: step.name, error: describeError(error), attempt },
          { aggregateId: checkoutId },
        ),
      );
    }
  }

  /** The work, through the seam's hooks (src/infra/hooks). */
  private async perform<I extends StepInput, R>(
    step: Step<I, R> | Compensation<I, R>,
    work: () => Promise<R>,
  ): Promise<StepRun<R>> {
    if (step.kind === 'compensation') return { answered: true, result: await this.hooks.compensation(step.name, work) };
    return this.hooks.step(step, work);
  }

  private async publish({ contract, payload }: OutgoingMessage, checkoutId: string): Promise<void> {
    await this.outbox.publish(contract, payload, { aggregateId: checkoutId });
  }
}
