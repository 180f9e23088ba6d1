import { Injectable } from '@nestjs/common';
import { EntitlementsRepository } from '../database/entitlements.repository';
import { decideActivate } from '../domain/entitlement';

export interface ActivateAccessInput {
  checkoutId: string;
}

export type ActivateOutcome = {
  outcome: 'activated';
  entitlementId: string;
  userId: string;
  planId: string;
  isNew: boolean;
};

/**
 * Step 5 of a checkout, after the pivot: the money was taken, so the provisional grant becomes
 * active and the buyer can use the plan. Retried until done, never compensated. A grant that is
 * missing or revoked by then is a contradiction, thrown for retries and in the end a person.
 */
@Injectable()
export class ActivateAccess {
  constructor(private readonly entitlements: EntitlementsRepository) {}

  async execute({ checkoutId }: ActivateAccessInput): Promise<ActivateOutcome> {
    const existing = await this.entitlements.lockByCheckout(checkoutId);
    const decision = decideActivate(existing);
    if (decision.kind === 'impossible') {
      throw new Error(`Cannot activate the access of ${checkoutId}: ${decision.reason}, yet its money was taken`);
    }
    if (decision.kind === 'activate') await this.entitlements.activate(existing!.id);
    return {
      outcome: 'activated',
      entitlementId: existing!.id,
      userId: existing!.user_id!,
      planId: existing!.plan_id!,
      isNew: decision.kind === 'activate',
    };
  }
}
