import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../context/message-context';
import { type FaultAction, Faults, InjectedFault } from './faults';

export interface StepRun<R> {
  /** False when an injected timeout swallowed the answer: the participant says nothing. */
  answered: boolean;
  result?: R;
}

/**
 * The fault points of a business process's steps, honoured the same way in every coordination
 * style: `step:<step>` with `fail` (a definitive business refusal), `timeout-before` (no effect,
 * no answer) or `timeout-after` (the effect, but the answer is lost); and `compensation:<step>`
 * with `fail` (the compensation throws).
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
        actions: ['fail', 'timeout-before', 'timeout-after'],
        description: `${step}: refuses, or answers nothing before or after doing its work`,
      });
    }
    for (const step of compensations) {
      this.faults.declare({ point: `compensation:${step}`, actions: ['fail'], description: `${step} throws` });
    }
  }

  /** Runs a step under its fault rules; `refusal` is what a `fail` rule makes it answer instead. */
  async run<R>(step: string, work: () => Promise<R>, refusal: () => R): Promise<StepRun<R>> {
    const fault = this.decide(`step:${step}`);
    if (fault === 'timeout-before') return { answered: false };
    if (fault === 'fail') return { answered: true, result: refusal() };
    const result = await work();
    return { answered: fault !== 'timeout-after', result };
  }

  /** Runs a compensation, which throws first when a rule says so. */
  async compensate<R>(step: string, work: () => Promise<R>): Promise<R> {
    if (this.decide(`compensation:${step}`) === 'fail') throw new InjectedFault(`compensation:${step}`);
    return work();
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
