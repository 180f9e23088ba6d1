export const CHECKOUT_STATUSES = ['PENDING', 'COMPLETED', 'REJECTED', 'FAILED', 'INTERVENTION'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/**
 * A step of the checkout, or a compensation, by name (`<module>.<action>`). Which steps there are,
 * and in which order, the checkout's table of steps says (core/checkout-steps.ts).
 */
export type CheckoutStep = string;

/** What a step is, which decides what happens when it fails or does not answer. */
export type StepClass =
  /** Changes nothing: there is nothing to undo. */
  | 'verify'
  /** Has an effect that a compensation undoes. */
  | 'compensable'
  /** The point of no return: never undone, never given up on blind. */
  | 'pivot'
  /** After the pivot: retried until done; a person takes over past the limit. */
  | 'retriable';

/** A row of the checkout's table of steps, as the domain reads it: its name, its class, what undoes it. */
export interface StepDefinition {
  name: CheckoutStep;
  class: StepClass;
  /** The compensation that undoes a compensable step. */
  compensation?: { name: CheckoutStep };
  /**
   * Its participant may be down for hours, "but it comes back" (a tax authority): it is asked
   * again over hours, not seconds, before a person is called (the saga's `outage` policy).
   */
  waitsOutOutages?: boolean;
}

/**
 * Every step a checkout can be at, in the order it gets there: the forward steps, then the
 * compensations in the order they run. A checkout's step only moves along it.
 */
export type StepOrder = readonly CheckoutStep[];

export interface CheckoutProgress {
  status: CheckoutStatus;
  step: CheckoutStep;
  failureReason: string | null;
}

/** What can be learned about a checkout while it runs. */
export type ProgressFact =
  | { kind: 'reached'; step: CheckoutStep }
  | { kind: 'compensating'; step: CheckoutStep; reason: string }
  | { kind: 'completed' }
  | { kind: 'rejected'; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'intervention'; reason: string }
  | { kind: 'resumed' };

const TERMINAL: ReadonlySet<CheckoutStatus> = new Set(['COMPLETED', 'REJECTED', 'FAILED']);

export const isTerminal = (status: CheckoutStatus): boolean => TERMINAL.has(status);

/**
 * The checkout after learning `fact`, or undefined when it changes nothing. Facts may arrive late
 * and out of order: a final status stays final; a person's intervention is left only by the
 * process resuming or ending; the step only moves forward.
 */
export function advance(current: CheckoutProgress, fact: ProgressFact, order: StepOrder): CheckoutProgress | undefined {
  if (isTerminal(current.status)) return undefined;
  // Later steps rank higher, and undoing ranks above doing: a late fact never moves a checkout back.
  const rank = (step: CheckoutStep) => order.indexOf(step);
  const next = ((): CheckoutProgress => {
    switch (fact.kind) {
      case 'reached':
        return rank(fact.step) > rank(current.step) ? { ...current, step: fact.step } : current;
      case 'compensating':
        return rank(fact.step) > rank(current.step)
          ? { ...current, step: fact.step, failureReason: current.failureReason ?? fact.reason }
          : current;
      case 'completed':
        return { ...current, status: 'COMPLETED', failureReason: null };
      case 'rejected':
        return { ...current, status: 'REJECTED', failureReason: fact.reason };
      case 'failed':
        return { ...current, status: 'FAILED', failureReason: current.failureReason ?? fact.reason };
      case 'intervention':
        return { ...current, status: 'INTERVENTION', failureReason: fact.reason };
      case 'resumed':
        return current.status === 'INTERVENTION' ? { ...current, status: 'PENDING', failureReason: null } : current;
    }
  })();
  const changed =
    next.status !== current.status || next.step !== current.step || next.failureReason !== current.failureReason;
  return changed ? next : undefined;
}
