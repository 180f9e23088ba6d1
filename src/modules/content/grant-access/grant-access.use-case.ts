import { Injectable } from '@nestjs/common';
import { together } from '../../../infra/database/one-write';
import { IdentityApi } from '../../identity';
import { EntitlementsRepository } from '../database/entitlements.repository';
import { decideGrant } from '../domain/entitlement';

export interface GrantAccessInput {
  checkoutId: string;
  userId: string;
  planId: string;
  idempotencyKey: string;
}

export type GrantOutcome =
  | { outcome: 'granted'; entitlementId: string; isNew: boolean }
  | { outcome: 'refused'; reason: string; isNew: boolean };

/**
 * Step 3 of a checkout: reserve the plan for the buyer, where the plan is licensed in the buyer's
 * country. The grant is provisional (a semantic lock, ADR 0051): the buyer cannot use it until the
 * capture makes it active, since until then the checkout may still be undone. A refusal is a
 * business answer, not an error. Compensated by a revoke.
 */
@Injectable()
export class GrantAccess {
  constructor(
    private readonly entitlements: EntitlementsRepository,
    private readonly identity: IdentityApi,
  ) {}

  async execute({ checkoutId, userId, planId, idempotencyKey }: GrantAccessInput): Promise<GrantOutcome> {
    // Asked for together: one round trip.
    const [existing, buyer, license] = await together([
      this.entitlements.lockByCheckout(checkoutId),
      this.identity.findUser(userId),
      this.entitlements.license(planId),
    ]);
    if (!buyer) return { outcome: 'refused', reason: 'unknown-user', isNew: !existing };
    const decision = decideGrant(existing, license, buyer.country);
    switch (decision.kind) {
      case 'already-granted':
        return { outcome: 'granted', entitlementId: existing!.id, isNew: false };
      case 'refused':
        return { outcome: 'refused', reason: decision.reason, isNew: !existing };
      case 'grant': {
        const granted = await this.entitlements.insert({
          checkout_id: checkoutId,
          user_id: userId,
          plan_id: planId,
          status: 'provisional',
          tombstone: false,
          idempotency_key: idempotencyKey,
        });
        return { outcome: 'granted', entitlementId: granted.id, isNew: true };
      }
    }
  }
}
