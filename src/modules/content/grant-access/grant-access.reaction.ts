import { Injectable } from '@nestjs/common';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { PaymentAuthorized, type PaymentPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessGranted, AccessRefused } from '../contracts';
import { GrantAccess } from './grant-access.handler';

/** Choreography: funds are held, so give access, or say why not (and billing will void). */
@Injectable()
export class GrantAccessReaction {
  constructor(
    private readonly grantAccess: GrantAccess,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(PaymentAuthorized, { consumer: 'content.grant-access', where: CHOREOGRAPHED })
  async onPaymentAuthorized({ checkoutId, userId, planId }: PaymentPayload): Promise<void> {
    const result = await this.grantAccess.execute({
      checkoutId,
      userId,
      planId,
      idempotencyKey: `${checkoutId}:content.grant-access`,
    });
    if (!result.isNew) return;
    if (result.outcome === 'granted') {
      await this.outbox.publish(
        AccessGranted,
        { checkoutId, entitlementId: result.entitlementId, userId, planId },
        { aggregateId: checkoutId },
      );
    } else {
      await this.outbox.publish(AccessRefused, { checkoutId, reason: result.reason }, { aggregateId: checkoutId });
    }
  }
}
