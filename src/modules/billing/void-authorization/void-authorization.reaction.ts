import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CHOREOGRAPHED } from '../../checkout/contracts';
import { AccessRefused, AccessRevoked, type AccessUndonePayload } from '../../content/contracts';
import { authorizeKey } from '../idempotency-keys';
import { VoidAuthorization } from './void-authorization.use-case';
import { voidAuthorizationStep } from './void-authorization.step';

/**
 * Choreography's compensation, as a reaction: when content refuses access (a sale it cannot
 * license) or revokes it (after a declined capture), billing releases the held funds. Content
 * undoes its part first, so the checkout is undone in the reverse order it was done.
 */
@Injectable()
export class VoidAuthorizationReaction {
  constructor(
    private readonly voidAuthorization: VoidAuthorization,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent([AccessRefused.type, AccessRevoked.type])
  @Consumer('billing.void-authorization', { where: CHOREOGRAPHED })
  async onAccessUndone({ checkoutId, reason }: AccessUndonePayload): Promise<void> {
    const input = { checkoutId, idempotencyKey: authorizeKey(checkoutId), reason };
    await this.steps.react(voidAuthorizationStep, input, () => this.voidAuthorization.execute(input));
  }
}
