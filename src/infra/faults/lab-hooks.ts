import { type OnApplicationBootstrap } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../context/message-context';
import { type DeliveryHooks, type HookedStep, Hooks } from '../hooks/hooks';
import { Subscriptions } from '../outbox/consuming/subscriptions';
import { StepCatalog } from '../steps/step-catalog';
import type { StepRun } from '../steps/step';
import { crashNow, type FaultAction, Faults, InjectedFault } from './faults';

/** The reason a step gives when a `fail` rule makes it refuse. */
export const INJECTED_REFUSAL = 'injected-refusal';

/**
 * One delivery's faults: `consumer:<name>` with `fail` (the handler throws, decided once for the
 * delivery, so that running it again alone fails again), `consumer:<name>:before-commit` with
 * `crash` or `hold` (asked once the handler returned: a copy that the inbox finds already handled never
 * spends the rule), and the crash a step's `after-commit` rule leaves for after the commit. The
 * step faults decided while handling it are kept here too, so that a re-run meets the same ones.
 */
class FaultyDelivery implements DeliveryHooks {
  readonly decisions = new Map<string, FaultAction | undefined>();
  crashAfterCommit?: string;
  private readonly fails: boolean;

  constructor(
    private readonly faults: Faults,
    private readonly consumer: string,
  ) {
    this.fails = faults.take(`consumer:${consumer}`) === 'fail';
  }

  beforeHandler(): void {
    if (this.fails) throw new InjectedFault(`consumer:${this.consumer}`);
  }

  beforeCommit(): Promise<void> {
    return this.faults.failOrHoldIfInjected(`consumer:${this.consumer}:before-commit`);
  }

  afterCommit(): void {
    if (this.crashAfterCommit) crashNow(this.crashAfterCommit);
  }
}

/**
 * The lab's hooks, in place of the transport's and the steps' own when FAULT_INJECTION is on: the
 * fault points of the relay, of every consumer and of every step, as `PUT /admin/faults` sets
 * rules for them (see Faults). A business process's steps have, in every coordination style:
 * `step:<step>` with `fail` (a definitive refusal; a step that cannot say no throws instead, and
 * is retried like any failure), `timeout-before` (no effect, no answer), `timeout-after` (the
 * effect, but the answer is lost) or `crash` (the process dies before the effect, say before the
 * gateway call); `step:<step>:after-effect` with `crash` (dies after the effect, before our
 * transaction commits); `step:<step>:after-commit` with `crash` (dies after our commit, before the
 * delivery is acknowledged and the answer relayed); and `compensation:<step>` with `fail`.
 */
export class LabHooks extends Hooks implements OnApplicationBootstrap {
  constructor(
    private readonly faults: Faults,
    private readonly cls: ClsService<MessageContext>,
    private readonly subscriptions: Subscriptions,
    private readonly steps: StepCatalog,
  ) {
    super();
  }

  /** Once the consumers are discovered and the modules have declared their steps. */
  onApplicationBootstrap(): void {
    this.faults.declare({
      point: 'relay.after-push',
      actions: ['fail', 'crash', 'hold'],
      description:
        'the relay fails (or its process dies, or it holds until the rules are cleared) after pushing a batch and before marking it published',
    });
    this.faults.declare({
      point: 'relay.push',
      actions: ['duplicate'],
      description:
        'the relay pushes every job twice, under two job ids, and the local bus hands every delivery over twice, so that every consumer gets it twice',
    });
    this.faults.declare({
      point: 'relay.before-confirm',
      actions: ['fail', 'crash'],
      description:
        'the logical relay (OUTBOX_RELAY=logical) fails (or its process dies) after pushing a batch and marking it published, before confirming its position to the slot',
    });
    this.faults.declare({
      point: 'bus.hand-over',
      actions: ['crash'],
      description:
        'the process dies after committing messages that its local bus (OUTBOX_DELIVERY=local) delivers, before handing them to their consumers',
    });
    for (const consumer of this.subscriptions.consumers()) {
      this.faults.declare({ point: `consumer:${consumer}`, actions: ['fail'], description: `${consumer} throws` });
      this.faults.declare({
        point: `consumer:${consumer}:before-commit`,
        actions: ['crash', 'hold'],
        description: `${consumer}: the process dies (or holds until the rules are cleared) after the handler, before the inbox commit`,
      });
    }
    for (const step of this.steps.steps()) {
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
    for (const step of this.steps.compensations()) {
      this.faults.declare({ point: `compensation:${step}`, actions: ['fail'], description: `${step} throws` });
    }
    this.faults.setRulesAtStart();
  }

  override pushing<J>(jobs: J[], copy: (job: J) => J): J[] {
    return this.faults.take('relay.push') === 'duplicate' ? [...jobs, ...jobs.map(copy)] : jobs;
  }

  override pushed(): Promise<void> {
    return this.faults.failOrHoldIfInjected('relay.after-push');
  }

  override confirming(): void {
    this.faults.failIfInjected('relay.before-confirm');
  }

  override handingOver<M>(messages: M[]): M[] {
    this.faults.failIfInjected('bus.hand-over');
    // Every delivery twice, whichever way it goes: through the queues or the local bus.
    return this.faults.take('relay.push') === 'duplicate' ? [...messages, ...messages] : messages;
  }

  override delivery(consumer: string): DeliveryHooks {
    return new FaultyDelivery(this.faults, consumer);
  }

  override async step<R>(step: HookedStep<R>, work: () => Promise<R>): Promise<StepRun<R>> {
    const point = `step:${step.name}`;
    const fault = this.decide(point);
    if (fault === 'timeout-before') return { answered: false };
    if (fault === 'fail') {
      if (!step.refuse) throw new InjectedFault(point);
      return { answered: true, result: step.refuse(INJECTED_REFUSAL) };
    }
    if (fault === 'crash') crashNow(point);
    const result = await work();
    if (this.decide(`${point}:after-effect`) === 'crash') crashNow(`${point}:after-effect`);
    if (this.decide(`${point}:after-commit`) === 'crash') this.crashAfterCommit(`${point}:after-commit`);
    return { answered: fault !== 'timeout-after', result };
  }

  override async compensation<R>(name: string, work: () => Promise<R>): Promise<R> {
    if (this.decide(`compensation:${name}`) === 'fail') throw new InjectedFault(`compensation:${name}`);
    return work();
  }

  private delivered(): FaultyDelivery | undefined {
    const hooks = this.cls.isActive() ? this.cls.get('deliveryHooks') : undefined;
    return hooks instanceof FaultyDelivery ? hooks : undefined;
  }

  private crashAfterCommit(point: string): void {
    const delivery = this.delivered();
    if (!delivery) throw new Error(`${point}: a step outside a delivery has no commit to crash after`);
    delivery.crashAfterCommit = point;
  }

  /** A delivery handled again (alone, after its shared transaction failed) meets the same fault. */
  private decide(point: string): FaultAction | undefined {
    const decided = this.delivered()?.decisions;
    if (decided?.has(point)) return decided.get(point);
    const action = this.faults.take(point, this.cls.isActive() ? this.cls.get('correlationId') : undefined);
    decided?.set(point, action);
    return action;
  }
}
