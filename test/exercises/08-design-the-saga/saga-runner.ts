import { TransactionHost } from '@nestjs-cls/transactional';
import { AuthorizePayment } from '../../../src/modules/billing/authorize-payment/authorize-payment.use-case';
import { CapturePayment } from '../../../src/modules/billing/capture-payment/capture-payment.use-case';
import { RefundPayment } from '../../../src/modules/billing/refund-payment/refund-payment.use-case';
import { VoidAuthorization } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';
import type { PaymentMethod } from '../../../src/modules/checkout/contracts';
import { GrantAccess } from '../../../src/modules/content/grant-access/grant-access.use-case';
import { RevokeAccess } from '../../../src/modules/content/revoke-access/revoke-access.use-case';
import { SendWelcomeEmail } from '../../../src/modules/notifications/send-welcome-email/send-welcome-email.use-case';
import type { Action, Compensation, SagaDesign } from './exercise';

/**
 * The smallest orchestrator that can run your design: it does each step in turn, and when one
 * says no, it undoes the steps that took effect, last first, with their compensations. Steps
 * without a compensation stay as they are: nothing can undo them. Everything a step does is done
 * by the real module, in its own transaction, against the real card gateway and mail server.
 *
 * (The project's own orchestrator, src/modules/checkout/orchestration/, does the same
 * and more: it persists each step, resends what goes unanswered, and asks a person when it must.)
 */
export async function runSaga(design: SagaDesign, checkout: Checkout, modules: CheckoutModules): Promise<SagaRun> {
  const run: SagaRun = { sold: false, trail: [] };
  const tookEffect: SagaDesign[number][] = [];
  for (const step of design) {
    const outcome = await modules.perform(step.action, checkout);
    run.trail.push({ did: step.action, ...outcome });
    if (!outcome.ok) {
      run.reason = outcome.answer;
      for (const earlier of [...tookEffect].reverse()) {
        if (!earlier.compensation) continue;
        run.trail.push({ did: earlier.compensation, ...(await modules.perform(earlier.compensation, checkout)) });
      }
      return run;
    }
    tookEffect.push(step);
  }
  return { ...run, sold: true };
}

export interface Checkout {
  id: string;
  userId: string;
  planId: string;
  paymentMethod: PaymentMethod;
}

/** What a module answered: `ok` false is a "no" (a declined card, a plan not licensed). */
export interface Outcome {
  ok: boolean;
  answer: string;
}

export interface SagaRun {
  sold: boolean;
  /** Why it did not sell: the answer of the step that said no. */
  reason?: string;
  /** Every action and compensation run, in order, with its answer. */
  trail: Array<{ did: Action | Compensation } & Outcome>;
}

/** Anything that hands out the app's providers (a TestApp does). */
interface Providers {
  get<T>(token: abstract new (...args: never[]) => T): T;
}

/**
 * The modules' own operations, each in its own local transaction, as a participant runs it. Every
 * step of a checkout has one idempotency key, and its compensation uses the same one, as the
 * project's saga does: the key is how a void finds the authorization it undoes.
 */
export class CheckoutModules {
  constructor(private readonly app: Providers) {}

  perform(what: Action | Compensation, checkout: Checkout): Promise<Outcome> {
    return this.app.get(TransactionHost).withTransaction(() => this.call(what, checkout));
  }

  private async call(what: Action | Compensation, { id: checkoutId, userId, planId, paymentMethod }: Checkout) {
    const key = (action: Action) => `${checkoutId}:${action}`;
    switch (what) {
      case 'authorize-payment': {
        const command = { checkoutId, userId, planId, paymentMethod, idempotencyKey: key(what) };
        const result = await this.app.get(AuthorizePayment).execute(command);
        return result.outcome === 'authorized' ? yes('authorized') : no(result.reason);
      }
      case 'grant-access': {
        const result = await this.app
          .get(GrantAccess)
          .execute({ checkoutId, userId, planId, idempotencyKey: key(what) });
        return result.outcome === 'granted' ? yes('granted') : no(result.reason);
      }
      case 'capture-payment': {
        const result = await this.app.get(CapturePayment).execute({ checkoutId, idempotencyKey: key(what) });
        return result.outcome === 'captured' ? yes('captured') : no(result.reason);
      }
      case 'send-welcome-email':
        await this.app.get(SendWelcomeEmail).execute({ checkoutId, userId, planId });
        return yes('sent');
      case 'void-authorization': {
        const command = { checkoutId, idempotencyKey: key('authorize-payment') };
        const result = await this.app.get(VoidAuthorization).execute(command);
        return result.outcome === 'voided' ? yes('voided') : no(result.reason);
      }
      case 'revoke-access':
        await this.app.get(RevokeAccess).execute({ checkoutId, idempotencyKey: key('grant-access') });
        return yes('revoked');
      case 'refund-payment': {
        const result = await this.app
          .get(RefundPayment)
          .execute({ checkoutId, idempotencyKey: key('capture-payment') });
        return result.outcome === 'refunded' ? yes('refunded') : no(result.reason);
      }
    }
  }
}

const yes = (answer: string): Outcome => ({ ok: true, answer });
const no = (answer: string): Outcome => ({ ok: false, answer });
