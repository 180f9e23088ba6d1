import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CaptureDeclined, type PaymentRefusalPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { grantKey } from '../idempotency-keys';
import { RevokeAccess } from './revoke-access.use-case';
import { revokeAccessStep } from './revoke-access.step';

/** Choreography's compensation: the money could not be taken, so the access goes first. */
@Injectable()
export class RevokeAccessReaction {
  constructor(
    private readonly revokeAccess: RevokeAccess,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(CaptureDeclined.type)
  @Consumer('content.revoke-access', { where: CHOREOGRAPHED })
  async onCaptureDeclined({ checkoutId, reason }: PaymentRefusalPayload): Promise<void> {
    const input = { checkoutId, idempotencyKey: grantKey(checkoutId), reason };
    await this.steps.react(revokeAccessStep, input, () => this.revokeAccess.execute(input));
  }
}
