export const CHECKOUT_STATUSES = ['PENDING', 'COMPLETED', 'REJECTED', 'FAILED', 'INTERVENTION'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

/**
 * The six steps, in the order the pivot rule gives: cheap and reversible first, irreversible last.
 * The grant is provisional until the capture; activating it comes before the email, so that the
 * email never welcomes a buyer to access they cannot use yet (ADR 0052).
 */
export const FORWARD_STEPS = [
  'identity.verify-user',
  'billing.authorize-payment',
  'content.grant-access',
  'billing.capture-payment',
  'content.activate-access',
  'notifications.send-welcome-email',
] as const;
/** The compensations, in the order they run: the reverse of the steps they undo. */
export const COMPENSATION_STEPS = ['content.revoke-access', 'billing.void-authorization'] as const;

export type ForwardStep = (typeof FORWARD_STEPS)[number];
export type CompensationStep = (typeof COMPENSATION_STEPS)[number];
export type CheckoutStep = ForwardStep | CompensationStep;

export interface CheckoutProgress {
  status: CheckoutStatus;
  step: CheckoutStep;
  failureReason: string | null;
}

/** What can be learned about a checkout while it runs. */
export type ProgressFact =
  | { kind: 'reached'; step: ForwardStep }
  | { kind: 'compensating'; step: CompensationStep; reason: string }
  | { kind: 'completed' }
  | { kind: 'rejected'; reason: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'intervention'; reason: string }
  | { kind: 'resumed' };

const TERMINAL: ReadonlySet<CheckoutStatus> = new Set(['COMPLETED', 'REJECTED', 'FAILED']);

export const isTerminal = (status: CheckoutStatus): boolean => TERMINAL.has(status);

/** Later steps rank higher, and undoing ranks above doing: a late fact never moves a checkout back. */
const rank = (step: CheckoutStep): number =>
  (FORWARD_STEPS as readonly string[]).includes(step)
    ? FORWARD_STEPS.indexOf(step as ForwardStep)
    : FORWARD_STEPS.length + COMPENSATION_STEPS.indexOf(step as CompensationStep);

/**
 * The checkout after learning `fact`, or undefined when it changes nothing. Facts may arrive late
 * and out of order: a final status stays final; a person's intervention is left only by the
 * process resuming or ending; the step only moves forward.
 */
export function advance(current: CheckoutProgress, fact: ProgressFact): CheckoutProgress | undefined {
  if (isTerminal(current.status)) return undefined;
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
