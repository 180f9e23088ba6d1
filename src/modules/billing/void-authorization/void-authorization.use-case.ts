import { Injectable } from '@nestjs/common';
import { PaymentsRepository } from '../database/payments.repository';
import { decideVoidOfFiled } from '../domain/filed-authorizations';
import { decideVoid } from '../domain/payment';
import { CardGateway, type GatewayResponse, UNKNOWN_AUTHORIZATION } from '../gateway/card-gateway';
import { voidOfFiledKey } from '../idempotency-keys';

export interface VoidAuthorizationInput {
  checkoutId: string;
  /** The key of the authorization being undone, as on every attempt of it. */
  idempotencyKey: string;
}

export type VoidOutcome =
  { outcome: 'voided'; paymentId?: string; isNew: boolean } | { outcome: 'not-voidable'; reason: string };

/**
 * Compensation of step 2: release the held funds. Voiding an authorization that never happened
 * succeeds and leaves a tombstone, so that if it arrives late it is refused. "Never happened" is
 * only what our records say: the gateway may have approved an attempt whose payment row never
 * committed (the process died, or the transaction failed, after the call). So the void also goes
 * to the gateway, by the authorization's idempotency key, which voids it if it knows it.
 */
@Injectable()
export class VoidAuthorization {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly gateway: CardGateway,
  ) {}

  async execute({ checkoutId, idempotencyKey }: VoidAuthorizationInput): Promise<VoidOutcome> {
    const payment = await this.payments.lockByCheckout(checkoutId);
    const decision = decideVoid(payment);
    switch (decision.kind) {
      case 'tombstone': {
        const found = this.gateway.voidsByKey
          ? await this.voidByKey(checkoutId, idempotencyKey)
          : await this.voidWhatIsFiled(checkoutId, idempotencyKey);
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
          gateway_authorization_id: found,
          decline_reason: null,
        });
        return { outcome: 'voided', paymentId: tombstone.id, isNew: true };
      }
      case 'nothing-to-void':
        return { outcome: 'voided', paymentId: payment!.id, isNew: false };
      case 'already-captured':
        return { outcome: 'not-voidable', reason: `payment is ${payment!.status}: refund it instead` };
      case 'void': {
        const response = await this.gateway.void(idempotencyKey, {
          authorizationId: payment!.gateway_authorization_id!,
        });
        if (!response.approved) throw refused(checkoutId, response);
        const voided = await this.payments.update(payment!, { status: 'voided' });
        return { outcome: 'voided', paymentId: voided.id, isNew: true };
      }
    }
  }

  /** The authorization the gateway voided by its key, or none if it never held one. */
  private async voidByKey(checkoutId: string, idempotencyKey: string): Promise<string | null> {
    // The key is the authorization's own (a compensation carries its action's key).
    const response = await this.gateway.void(idempotencyKey, { authorizationKey: idempotencyKey });
    if (!response.approved && response.reason !== UNKNOWN_AUTHORIZATION) throw refused(checkoutId, response);
    return response.approved ? response.authorizationId : null;
  }

  /**
   * Without void by key: look up what the gateway filed under the checkout, and void by id each
   * authorization still held. The look-up is one more call that can go unanswered: it throws then
   * (the compensation is retried, and in the end a person's), and only an answered look-up that
   * finds nothing lets the tombstone say "never happened".
   */
  private async voidWhatIsFiled(checkoutId: string, idempotencyKey: string): Promise<string | null> {
    const decision = decideVoidOfFiled(await this.gateway.authorizationsFiledUnder(checkoutId));
    // Captured money we hold no payment of is no void's: retried, and in the end a person's.
    if (decision.kind === 'captured') {
      throw new Error(
        `The gateway captured ${decision.authorizationId} for ${checkoutId}, of which we hold no payment`,
      );
    }
    for (const authorizationId of decision.held) {
      const response = await this.gateway.void(voidOfFiledKey(idempotencyKey, authorizationId), { authorizationId });
      if (!response.approved) throw refused(checkoutId, response);
    }
    return decision.found;
  }
}

/** The gateway refused a void of an authorization it holds: retried, and in the end a person's. */
const refused = (checkoutId: string, response: GatewayResponse & { approved: false }) =>
  new Error(`The gateway refused to void the authorization of ${checkoutId}: ${response.reason}`);
