import { Injectable } from '@nestjs/common';
import { EntitlementsRepository } from '../database/entitlements.repository';
import { decideRevoke } from '../domain/entitlement';

export interface RevokeAccessInput {
  checkoutId: string;
  /** The key of the grant being undone, as on every attempt of it. */
  idempotencyKey: string;
}

export type RevokeOutcome = { outcome: 'revoked'; entitlementId: string; isNew: boolean };

/**
 * Compensation of step 3: withdraw the access granted for a checkout, provisional (the usual case:
 * the capture was declined) or active. Revoking what was never
 * granted succeeds and leaves a tombstone, so that a grant arriving late is refused.
 */
@Injectable()
export class RevokeAccess {
  constructor(private readonly entitlements: EntitlementsRepository) {}

  async execute({ checkoutId, idempotencyKey }: RevokeAccessInput): Promise<RevokeOutcome> {
    const existing = await this.entitlements.lockByCheckout(checkoutId);
    const decision = decideRevoke(existing);
    switch (decision.kind) {
      case 'already-revoked':
        return { outcome: 'revoked', entitlementId: existing!.id, isNew: false };
      case 'revoke':
        await this.entitlements.revoke(existing!.id);
        return { outcome: 'revoked', entitlementId: existing!.id, isNew: true };
      case 'tombstone': {
        const tombstone = await this.entitlements.insert({
          checkout_id: checkoutId,
          user_id: null,
          plan_id: null,
          status: 'revoked',
          tombstone: true,
          idempotency_key: idempotencyKey,
        });
        return { outcome: 'revoked', entitlementId: tombstone.id, isNew: true };
      }
    }
  }
}
