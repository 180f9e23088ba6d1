import { Injectable } from '@nestjs/common';
import { PaymentsRepository } from '../database/payments.repository';
import { decideVoid } from '../domain/payment';
import { CardGateway } from '../gateway/card-gateway';

export interface VoidAuthorizationCommand {
  checkoutId: string;
  /** The key of the authorization being undone, as on every attempt of it. */
  idempotencyKey: string;
}

export type VoidOutcome =
  { outcome: 'voided'; paymentId?: string; isNew: boolean } | { outcome: 'not-voidable'; reason: string };

/**
 * Compensation of step 2: release the held funds. Voiding an authorization that never happened
 * succeeds and leaves a tombstone, so that if it arrives late it is refused.
 */
@Injectable()
export class VoidAuthorization {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly gateway: CardGateway,
  ) {}

  async execute({ checkoutId, idempotencyKey }: VoidAuthorizationCommand): Promise<VoidOutcome> {
    const payment = await this.payments.lockByCheckout(checkoutId);
    const decision = decideVoid(payment);
    switch (decision.kind) {
      case 'tombstone': {
        const tombstone = await this.payments.insert({
          checkout_id: checkoutId,
          user_id: null,
          plan_id: null,
          amount_cents: null,
          currency: null,
          payment_method: null,
          status: 'voided',
          tombstone: true,
          idempotency_key: idempotencyKey,
          gateway_authorization_id: null,
          decline_reason: null,
        });
        return { outcome: 'voided', paymentId: tombstone.id, isNew: true };
      }
      case 'nothing-to-void':
        return { outcome: 'voided', paymentId: payment!.id, isNew: false };
      case 'already-captured':
        return { outcome: 'not-voidable', reason: `payment is ${payment!.status}: refund it instead` };
      case 'void': {
        await this.gateway.void(idempotencyKey, payment!.gateway_authorization_id!);
        const voided = await this.payments.update(payment!.id, { status: 'voided' });
        return { outcome: 'voided', paymentId: voided.id, isNew: true };
      }
    }
  }
}
