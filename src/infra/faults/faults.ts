import { Inject, Injectable, Logger } from '@nestjs/common';
import { writeSync } from 'node:fs';
import { appConfig, type AppConfig } from '../../config/app.config';
import { faultsConfig, type FaultsConfig } from './faults.config';

export const FAULT_ACTIONS = ['fail', 'timeout-before', 'timeout-after', 'duplicate', 'crash', 'hold'] as const;
export type FaultAction = (typeof FAULT_ACTIONS)[number];

export interface FaultRule {
  /**
   * Where: `relay.after-push`, `relay.push`, `consumer:<name>`, `consumer:<name>:before-commit`,
   * `step:<step>`, `step:<step>:after-effect`, `step:<step>:after-commit`, `compensation:<step>`.
   */
  point: string;
  action: FaultAction;
  /** How many occurrences it affects; omitted: every one. */
  times?: number;
  /**
   * Only the work of this correlation id (one checkout's: its steps and compensations); omitted:
   * everyone's. Lets several rules on one step run side by side, each on its own checkout.
   */
  correlationId?: string;
}

/** The points whose work belongs to one correlation, where a rule may name one. */
const CORRELATED_POINTS = /^(step|compensation):/;

export interface ActiveFaultRule extends FaultRule {
  /** Occurrences it has affected so far. */
  hits: number;
}

/** Thrown where a `fail` rule fires. */
export class InjectedFault extends Error {
  constructor(readonly point: string) {
    super(`Injected fault at ${point}`);
    this.name = 'InjectedFault';
  }
}

/**
 * What a `crash` rule does: the process ends at once, as `kill -9` would. No shutdown hook runs,
 * no transaction is committed or rolled back (Postgres rolls it back when the socket drops), no
 * job lock is released and no buffered log line is written: only this one, synchronously.
 */
export function crashNow(point: string): never {
  writeSync(2, `Injected crash at ${point}: process ${process.pid} killed\n`);
  process.kill(process.pid, 'SIGKILL');
  throw new InjectedFault(point); // not reached: the signal ends the process before this line
}

/** The points where faults can be injected, and which actions each understands. */
export interface FaultPoint {
  point: string;
  actions: readonly FaultAction[];
  description: string;
}

/**
 * Fault injection, for demonstrations and tests, and only when FAULT_INJECTION=true. Rules live in
 * this process's memory: with several replicas, each is set on its own.
 */
@Injectable()
export class Faults {
  private readonly logger = new Logger('Faults');
  private rules: ActiveFaultRule[] = [];
  private readonly points = new Map<string, FaultPoint>();

  constructor(
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(faultsConfig.KEY) private readonly lab: FaultsConfig,
  ) {}

  get enabled(): boolean {
    return this.config.faultInjection;
  }

  /** Components declare their points at start, so that a rule naming no real point is refused. */
  declare(point: FaultPoint): void {
    this.points.set(point.point, point);
  }

  declared(): FaultPoint[] {
    return [...this.points.values()].sort((a, b) => a.point.localeCompare(b.point));
  }

  /** Why these rules cannot be set, one problem per entry; empty when they can. */
  problemsWith(rules: FaultRule[]): string[] {
    return rules.flatMap((rule, index) => {
      const point = this.points.get(rule.point);
      if (!point) return [`rules.${index}.point: unknown point "${rule.point}"; see GET /admin/faults for the points`];
      if (!point.actions.includes(rule.action)) {
        return [`rules.${index}.action: ${rule.point} understands ${point.actions.join(', ')}`];
      }
      if (rule.correlationId !== undefined && !CORRELATED_POINTS.test(rule.point)) {
        return [`rules.${index}.correlationId: only step and compensation points belong to one correlation`];
      }
      return [];
    });
  }

  set(rules: FaultRule[]): void {
    const problems = this.problemsWith(rules);
    if (problems.length > 0) throw new Error(problems.join('; '));
    this.rules = rules.map((rule) => ({ ...rule, hits: 0 }));
    if (rules.length > 0) this.logger.warn(`Fault rules set: ${JSON.stringify(rules)}`);
  }

  /** The rules of FAULT_RULES, once every point is declared. */
  setRulesAtStart(): void {
    if (this.enabled && this.lab.rulesAtStart.length > 0) this.set(this.lab.rulesAtStart as FaultRule[]);
  }

  clear(): void {
    this.rules = [];
  }

  active(): ActiveFaultRule[] {
    return this.rules.map((rule) => ({ ...rule }));
  }

  /**
   * The action to take at this point now, for the work of `correlationId`, if a rule says so; each
   * call uses up one occurrence.
   */
  take(point: string, correlationId?: string): FaultAction | undefined {
    if (!this.enabled) return undefined;
    const rule = this.rules.find(
      (r) =>
        r.point === point &&
        (r.correlationId === undefined || r.correlationId === correlationId) &&
        (r.times === undefined || r.hits < r.times),
    );
    if (!rule) return undefined;
    rule.hits += 1;
    this.logger.warn(`Injecting ${rule.action} at ${point} (${rule.hits}${rule.times ? `/${rule.times}` : ''})`);
    return rule.action;
  }

  /** Throws an InjectedFault when a `fail` rule fires at this point; ends the process when a `crash` rule does. */
  failIfInjected(point: string): void {
    const action = this.take(point);
    if (action === 'fail') throw new InjectedFault(point);
    if (action === 'crash') crashNow(point);
  }

  /**
   * As failIfInjected, and a `hold` rule keeps the caller waiting here until the rules are replaced
   * or cleared (a minute at most): a process stalled at this point, for a test to act meanwhile
   * (cut its network, say) and then let it go on.
   */
  async failOrHoldIfInjected(point: string): Promise<void> {
    const action = this.take(point);
    if (action === 'hold') {
      const rules = this.rules;
      const until = Date.now() + 60_000;
      while (this.rules === rules && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (action === 'fail') throw new InjectedFault(point);
    if (action === 'crash') crashNow(point);
  }
}
