import { Injectable } from '@nestjs/common';
import type { StepRun } from '../steps/step';

/** What a step's hook is told of the step: its name, and how it says no, if it can. */
export interface HookedStep<R> {
  readonly name: string;
  readonly refuse?: (reason: string) => R;
}

/**
 * The turning points of one delivery of a message to a consumer, from its handler to its
 * acknowledgement. One set is made when a job's delivery is taken, and kept while the delivery is
 * handled again alone, so that a re-run meets what the first run met.
 */
export interface DeliveryHooks {
  /** In the delivery's transaction, before its handler runs; may throw, as a handler may. */
  beforeHandler(): void;
  /** The handler returned; the transaction has not committed. Not called for a copy already handled. */
  beforeCommit(): Promise<void>;
  /** The transaction committed; the job is not yet acknowledged. */
  afterCommit(): void;
}

const LET_BE: DeliveryHooks = { beforeHandler() {}, beforeCommit: () => Promise.resolve(), afterCommit() {} };

/**
 * The one seam through which something outside the transport and the steps may step into them: the
 * relay, the consumers, the inbox and the step runner call these hooks at their turning points, and
 * here every hook lets things be. A lab provides its own in their place (src/infra/faults, when
 * FAULT_INJECTION is on); production code never knows which it has.
 */
@Injectable()
export class Hooks {
  /** The jobs of one push of the relay, which a hook may add to (`copy` makes one under an id of its own). */
  pushing<J>(jobs: J[], _copy: (job: J) => J): J[] {
    return jobs;
  }

  /** The relay pushed a batch and has not yet marked it published (its transaction is open). */
  pushed(): Promise<void> {
    return Promise.resolve();
  }

  /** The logical relay pushed and marked what it read, and has not yet confirmed its position to the slot. */
  confirming(): void {}

  /**
   * A transaction that wrote messages this process delivers itself (the local bus) committed; none
   * is handed over yet. Answers what to hand over, which a hook may add to.
   */
  handingOver<M>(messages: M[]): M[] {
    return messages;
  }

  /** The turning points of one delivery to `consumer`. */
  delivery(_consumer: string): DeliveryHooks {
    return LET_BE;
  }

  /** A step's work, in the transaction of the delivery that asked for it. */
  async step<R>(_step: HookedStep<R>, work: () => Promise<R>): Promise<StepRun<R>> {
    return { answered: true, result: await work() };
  }

  /** A compensation's work, in the transaction of the delivery that asked for it. */
  compensation<R>(_name: string, work: () => Promise<R>): Promise<R> {
    return work();
  }
}
