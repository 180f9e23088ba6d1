import type { AuthorizeOutcome, CaptureOutcome, IssueOutcome, VoidOutcome } from '../../src/modules/billing';
import type { ActivateOutcome, GrantOutcome, RevokeOutcome } from '../../src/modules/content';
import type { BuyerVerdict } from '../../src/modules/identity';
import type { WelcomeOutcome } from '../../src/modules/notifications';

/**
 * The checkout as the peers run it: the orchestrated checkout's steps, in its order, with its
 * compensations, decided the same way for both peers (DBOS and graphile-worker) from what each
 * step's operation answered. Which engine carries a checkout from one step to the next is the
 * only difference between them.
 */
export interface PeerCheckout {
  id: string;
  userId: string;
  planId: string;
  paymentMethod: string;
  correlationId: string;
}

export const FIRST_STEP = 'identity.verify-user';

/** What each step's operation answers (the participants' own outcome types). */
export interface StepResults {
  'identity.verify-user': BuyerVerdict;
  'billing.authorize-payment': AuthorizeOutcome;
  'content.grant-access': GrantOutcome;
  'billing.capture-payment': CaptureOutcome;
  'content.activate-access': ActivateOutcome;
  'billing.issue-invoice': IssueOutcome;
  'notifications.send-welcome-email': WelcomeOutcome;
  'content.revoke-access': RevokeOutcome;
  'billing.void-authorization': VoidOutcome;
}
export type PeerStep = keyof StepResults;

export type FinalStatus = 'COMPLETED' | 'REJECTED' | 'FAILED' | 'INTERVENTION';

/** Where a checkout goes after a step: another step (with the reason it is being undone, if it is), or an end. */
export type Next = { step: PeerStep; reason?: string } | { end: FinalStatus; reason?: string };

/**
 * The step that follows `step`, given its result: the pivot rule of the orchestrated checkout
 * (verify, authorize, grant, capture, activate, invoice, email); a refusal before the capture
 * undoes what was done, in reverse order (revoke, then void); a captured payment that cannot be
 * voided, or an invoice the authority refuses, waits for a person.
 */
export function after<S extends PeerStep>(step: S, result: StepResults[S], reason?: string): Next {
  const r = result as StepResults[PeerStep];
  switch (step) {
    case 'identity.verify-user': {
      const verdict = r as BuyerVerdict;
      return verdict.verified ? { step: 'billing.authorize-payment' } : { end: 'REJECTED', reason: verdict.reason };
    }
    case 'billing.authorize-payment': {
      const outcome = r as AuthorizeOutcome;
      return outcome.outcome === 'authorized'
        ? { step: 'content.grant-access' }
        : { end: 'FAILED', reason: outcome.reason };
    }
    case 'content.grant-access': {
      const outcome = r as GrantOutcome;
      return outcome.outcome === 'granted'
        ? { step: 'billing.capture-payment' }
        : { step: 'billing.void-authorization', reason: outcome.reason };
    }
    case 'billing.capture-payment': {
      const outcome = r as CaptureOutcome;
      return outcome.outcome === 'captured'
        ? { step: 'content.activate-access' }
        : { step: 'content.revoke-access', reason: outcome.reason };
    }
    case 'content.activate-access':
      return { step: 'billing.issue-invoice' };
    case 'billing.issue-invoice': {
      const outcome = r as IssueOutcome;
      return outcome.outcome === 'issued'
        ? { step: 'notifications.send-welcome-email' }
        : { end: 'INTERVENTION', reason: outcome.reason };
    }
    case 'notifications.send-welcome-email':
      return { end: 'COMPLETED' };
    case 'content.revoke-access':
      return { step: 'billing.void-authorization', reason };
    case 'billing.void-authorization': {
      const outcome = r as VoidOutcome;
      return outcome.outcome === 'voided'
        ? { end: 'FAILED', reason }
        : { end: 'INTERVENTION', reason: `${reason ?? 'undone'}; ${outcome.reason}` };
    }
  }
  throw new Error(`No step ${String(step)} in the peers' checkout`);
}
