import { Injectable } from '@nestjs/common';
import { StepFaults } from '../../../infra/faults/step-faults';
import { OnMessage, OutboxPublisher } from '../../../infra/outbox';
import { CaptureDeclined, type PaymentRefusalPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessRevoked } from '../contracts';
import { RevokeAccess } from './revoke-access.handler';

/** Choreography's compensation: the money could not be taken, so the access goes first. */
@Injectable()
export class RevokeAccessReaction {
  constructor(
    private readonly revokeAccess: RevokeAccess,
    private readonly steps: StepFaults,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnMessage(CaptureDeclined, { consumer: 'content.revoke-access', where: CHOREOGRAPHED })
  async onCaptureDeclined({ checkoutId, reason }: PaymentRefusalPayload): Promise<void> {
    const result = await this.steps.compensate('content.revoke-access', () =>
      this.revokeAccess.execute({ checkoutId, idempotencyKey: `${checkoutId}:content.grant-access` }),
    );
    if (!result.isNew) return;
    await this.outbox.publish(
      AccessRevoked,
      { checkoutId, entitlementId: result.entitlementId, reason },
      { aggregateId: checkoutId },
    );
  }
}
