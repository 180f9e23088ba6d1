import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { PaymentAuthorized, type PaymentPayload } from '../../billing/contracts';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { grantKey } from '../idempotency-keys';
import { GrantAccess } from './grant-access.use-case';
import { grantAccessStep } from './grant-access.step';

/** Choreography: funds are held, so give access, or say why not (and billing will void). */
@Injectable()
export class GrantAccessReaction {
  constructor(
    private readonly grantAccess: GrantAccess,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(PaymentAuthorized.type)
  @Consumer('content.grant-access', { where: CHOREOGRAPHED })
  async onPaymentAuthorized({ checkoutId, userId, planId }: PaymentPayload): Promise<void> {
    const input = { checkoutId, userId, planId, idempotencyKey: grantKey(checkoutId) };
    await this.steps.react(grantAccessStep, input, () => this.grantAccess.execute(input));
  }
}
