import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../src/infra/context/message-context';
import { sendWithNext } from '../../src/infra/database/one-write';
import { Hooks } from '../../src/infra/hooks/hooks';
import { AuthorizePayment } from '../../src/modules/billing/authorize-payment/authorize-payment.use-case';
import { authorizePaymentStep } from '../../src/modules/billing/authorize-payment/authorize-payment.step';
import { CapturePayment } from '../../src/modules/billing/capture-payment/capture-payment.use-case';
import { capturePaymentStep } from '../../src/modules/billing/capture-payment/capture-payment.step';
import { VoidAuthorization } from '../../src/modules/billing/void-authorization/void-authorization.use-case';
import type { PaymentMethod } from '../../src/modules/checkout/contracts';
import { keyOfStep } from '../../src/modules/checkout/core/checkout-steps';
import { progressAssignments } from '../../src/modules/checkout/database/checkouts.repository';
import { ActivateAccess } from '../../src/modules/content/activate-access/activate-access.use-case';
import { GrantAccess } from '../../src/modules/content/grant-access/grant-access.use-case';
import { grantAccessStep } from '../../src/modules/content/grant-access/grant-access.step';
import { RevokeAccess } from '../../src/modules/content/revoke-access/revoke-access.use-case';
import { VerifyUser } from '../../src/modules/identity/verify-user/verify-user.use-case';
import { verifyUserStep } from '../../src/modules/identity/verify-user/verify-user.step';
import { SendWelcomeEmail } from '../../src/modules/notifications/send-welcome-email/send-welcome-email.use-case';
import { after, type Next, type PeerCheckout, type PeerStep, type StepResults } from './checkout-flow';

/**
 * Runs one step of a peer's checkout the way our participants run it, without our transport: the
 * participant's own operation (the same use case, SQL and gateway calls as a command of our saga),
 * under the same fault points, in one transaction that also writes the checkout's progress and
 * whatever the peer adds there (graphile-worker: the next step's job). What the step's answer
 * would be in our saga is here `after`'s decision, returned to the peer.
 */
@Injectable()
export class PeerSteps {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly hooks: Hooks,
    private readonly verifyUser: VerifyUser,
    private readonly authorizePayment: AuthorizePayment,
    private readonly grantAccess: GrantAccess,
    private readonly capturePayment: CapturePayment,
    private readonly activateAccess: ActivateAccess,
    private readonly sendWelcomeEmail: SendWelcomeEmail,
    private readonly revokeAccess: RevokeAccess,
    private readonly voidAuthorization: VoidAuthorization,
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
        await sendWithNext(
          this.txHost.tx,
          `UPDATE checkout.checkouts SET ${progressAssignments('$2', '$3', '$4')} WHERE id = $1 AND status = 'PENDING'`,
          'step' in next
            ? [checkout.id, 'PENDING', next.step, next.reason ?? null]
            : [checkout.id, next.end, step, next.reason ?? null],
        );
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
    const idempotencyKey = keyOfStep(checkoutId, step);
    const forward = async <R>(refuse: ((reason: string) => R) | undefined, work: () => Promise<R>): Promise<R> => {
      const run = await this.hooks.step({ name: step, refuse }, work);
      // Timeouts are our saga's faults (an answer lost): a peer has no answer to lose.
      if (run.result === undefined) throw new Error(`${step}: the peers take crash and fail faults only`);
      return run.result;
    };
    switch (step) {
      case 'identity.verify-user':
        return forward(verifyUserStep.refuse, () => this.verifyUser.verify(userId));
      case 'billing.authorize-payment':
        return forward(authorizePaymentStep.refuse, () =>
          this.authorizePayment.execute({
            checkoutId,
            userId,
            planId,
            paymentMethod,
            idempotencyKey,
          }),
        );
      case 'content.grant-access':
        return forward(grantAccessStep.refuse, () =>
          this.grantAccess.execute({ checkoutId, userId, planId, idempotencyKey }),
        );
      case 'billing.capture-payment':
        return forward(capturePaymentStep.refuse, () => this.capturePayment.execute({ checkoutId, idempotencyKey }));
      case 'content.activate-access':
        return forward(undefined, () => this.activateAccess.execute({ checkoutId }));
      case 'notifications.send-welcome-email':
        return forward(undefined, () => this.sendWelcomeEmail.execute({ checkoutId, userId, planId }));
      case 'content.revoke-access':
        return this.hooks.compensation(step, () => this.revokeAccess.execute({ checkoutId, idempotencyKey }));
      case 'billing.void-authorization':
        return this.hooks.compensation(step, () => this.voidAuthorization.execute({ checkoutId, idempotencyKey }));
    }
  }
}
