import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../src/infra/context/message-context';
import { Hooks } from '../../src/infra/hooks/hooks';
import type { StepRun } from '../../src/infra/steps';
import { BillingApi } from '../../src/modules/billing';
import { CheckoutApi } from '../../src/modules/checkout';
import type { PaymentMethod } from '../../src/modules/checkout/contracts';
import { ContentApi } from '../../src/modules/content';
import { IdentityApi } from '../../src/modules/identity';
import { NotificationsApi } from '../../src/modules/notifications';
import { after, type Next, type PeerCheckout, type PeerStep, type StepResults } from './checkout-flow';

/**
 * Runs one step of a peer's checkout the way our participants run it, without our transport: the
 * participant's own operation (through its module's door: the same use case, SQL and gateway calls
 * as a command of our saga), under the same fault points, in one transaction that also writes the
 * checkout's progress and whatever the peer adds there (graphile-worker: the next step's job). What
 * the step's answer would be in our saga is here `after`'s decision, returned to the peer.
 */
@Injectable()
export class PeerSteps {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly hooks: Hooks,
    private readonly checkouts: CheckoutApi,
    private readonly identity: IdentityApi,
    private readonly billing: BillingApi,
    private readonly content: ContentApi,
    private readonly notifications: NotificationsApi,
  ) {}

  /**
   * Carries out `step` of `checkout` in a transaction of its own, and answers where the checkout
   * goes next. `alsoInTransaction` runs in that transaction once the next step is known. A crash
   * armed after the commit happens once the transaction has committed, before the peer hears back.
   */
  async run(
    checkout: PeerCheckout,
    step: PeerStep,
    reason?: string,
    alsoInTransaction?: (next: Next) => Promise<void>,
  ): Promise<Next> {
    // The step's turning points as a delivery's: what it decided to crash after the commit, it does then.
    const hooks = this.hooks.delivery(`peer:${step}`);
    const next = await this.cls.run({ ifNested: 'override' }, () => {
      this.cls.set('correlationId', checkout.correlationId);
      this.cls.set('deliveryHooks', hooks);
      return this.txHost.withTransaction(async () => {
        const next = after(step, await this.perform(checkout, step), reason);
        // With the COMMIT, as our saga's progress goes; a final status stays final, whatever runs again.
        await ('step' in next
          ? this.checkouts.setProgress(checkout.id, 'PENDING', next.step, next.reason ?? null)
          : this.checkouts.setProgress(checkout.id, next.end, step, next.reason ?? null));
        await alsoInTransaction?.(next);
        return next;
      });
    });
    hooks.afterCommit();
    return next;
  }

  /** The participant's operation for `step`, under the step's fault points, with the keys our saga gives it. */
  private async perform(checkout: PeerCheckout, step: PeerStep): Promise<StepResults[PeerStep]> {
    const { id: checkoutId, userId, planId } = checkout;
    const paymentMethod = checkout.paymentMethod as PaymentMethod;
    // `<checkout>:<action>`, the same for an action and its compensation, as our saga gives it.
    const idempotencyKey = this.checkouts.keyOfStep(checkoutId, step);
    const answered = async <R>(running: Promise<StepRun<R>>): Promise<R> => {
      const run = await running;
      // Timeouts are our saga's faults (an answer lost): a peer has no answer to lose.
      if (run.result === undefined) throw new Error(`${step}: the peers take crash and fail faults only`);
      return run.result;
    };
    switch (step) {
      case 'identity.verify-user':
        return answered(this.identity.verifyBuyer(userId));
      case 'billing.authorize-payment':
        return answered(this.billing.authorizePayment({ checkoutId, userId, planId, paymentMethod, idempotencyKey }));
      case 'content.grant-access':
        return answered(this.content.grantAccess({ checkoutId, userId, planId, idempotencyKey }));
      case 'billing.capture-payment':
        return answered(this.billing.capturePayment({ checkoutId, idempotencyKey }));
      case 'content.activate-access':
        return answered(this.content.activateAccess({ checkoutId }));
      case 'billing.issue-invoice':
        return answered(this.billing.issueInvoice({ checkoutId, idempotencyKey }));
      case 'notifications.send-welcome-email':
        return answered(this.notifications.sendWelcomeEmail({ checkoutId, userId, planId }));
      case 'content.revoke-access':
        return this.content.revokeAccess({ checkoutId, idempotencyKey });
      case 'billing.void-authorization':
        return this.billing.voidAuthorization({ checkoutId, idempotencyKey });
    }
  }
}
