import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../context/message-context';
import { crashNow, type FaultAction, Faults, InjectedFault } from './faults';

/**
 * The key, in a delivery's fault decisions, of a crash due once its transaction has committed:
 * the consumer that ran the delivery carries it out after the commit, before acknowledging.
 */
export const CRASH_AFTER_COMMIT = 'crash-after-commit';

export interface StepRun<R> {
  /** False when an injected timeout swallowed the answer: the participant says nothing. */
  answered: boolean;
  result?: R;
}

/**
 * The fault points of a business process's steps, honoured the same way in every coordination
 * style: `step:<step>` with `fail` (a definitive business refusal), `timeout-before` (no effect,
 * no answer), `timeout-after` (the effect, but the answer is lost) or `crash` (the process dies
 * before the effect, say before the gateway call); `step:<step>:after-effect` with `crash` (dies
 * after the effect, before our transaction commits); `step:<step>:after-commit` with `crash`
 * (dies after our commit, before the delivery is acknowledged and the answer relayed); and
 * `compensation:<step>` with `fail` (the compensation throws).
 */
@Injectable()
export class StepFaults {
  constructor(
    private readonly faults: Faults,
    private readonly cls: ClsService<MessageContext>,
  ) {}

  declare(steps: readonly string[], compensations: readonly string[]): void {
    for (const step of steps) {
      this.faults.declare({
        point: `step:${step}`,
        actions: ['fail', 'timeout-before', 'timeout-after', 'crash'],
        description: `${step}: refuses, answers nothing before or after doing its work, or its process dies before it`,
      });
      this.faults.declare({
        point: `step:${step}:after-effect`,
        actions: ['crash'],
        description: `${step}: its process dies after the work (the gateway call, the email), before our commit`,
      });
      this.faults.declare({
        point: `step:${step}:after-commit`,
        actions: ['crash'],
        description: `${step}: its process dies after our commit, before the answer leaves`,
      });
    }
    for (const step of compensations) {
      this.faults.declare({ point: `compensation:${step}`, actions: ['fail'], description: `${step} throws` });
    }
  }

  /**
   * Runs a step under its fault rules; `refusal` is what a `fail` rule makes it answer instead. A
   * step that cannot say no (an activation, an email) has none: there `fail` throws, and the
   * failure is retried like any other.
   */
  async run<R>(step: string, work: () => Promise<R>, refusal?: R): Promise<StepRun<R>> {
    const fault = this.decide(`step:${step}`);
    if (fault === 'timeout-before') return { answered: false };
    if (fault === 'fail') {
      if (refusal === undefined) throw new InjectedFault(`step:${step}`);
      return { answered: true, result: refusal };
    }
    if (fault === 'crash') crashNow(`step:${step}`);
    const result = await work();
    if (this.decide(`step:${step}:after-effect`) === 'crash') crashNow(`step:${step}:after-effect`);
    if (this.decide(`step:${step}:after-commit`) === 'crash') this.crashAfterCommit(`step:${step}:after-commit`);
    return { answered: fault !== 'timeout-after', result };
  }

  /** Runs a compensation, which throws first when a rule says so. */
  async compensate<R>(step: string, work: () => Promise<R>): Promise<R> {
    if (this.decide(`compensation:${step}`) === 'fail') throw new InjectedFault(`compensation:${step}`);
    return work();
  }

  private crashAfterCommit(point: string): void {
    const decided = this.cls.isActive() ? this.cls.get('faultDecisions') : undefined;
    if (!decided) throw new Error(`${point}: a step outside a delivery has no commit to crash after`);
    decided.set(CRASH_AFTER_COMMIT, point);
  }

  /** A delivery handled again (alone, after its shared transaction failed) meets the same fault. */
  private decide(point: string): FaultAction | undefined {
    const decided = this.cls.isActive() ? this.cls.get('faultDecisions') : undefined;
    if (decided?.has(point)) return decided.get(point) as FaultAction | undefined;
    const action = this.faults.take(point);
    decided?.set(point, action);
    return action;
  }
}
