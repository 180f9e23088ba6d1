import type { PaymentMethod } from '../../checkout/contracts';
import type { FiledAuthorization } from '../domain/filed-authorizations';
import type { FiledOperation } from '../domain/filed-money';

export type GatewayResponse = { approved: true; authorizationId: string } | { approved: false; reason: string };

/** The gateway has no authorization by that id or key: nothing was ever held under it. */
export const UNKNOWN_AUTHORIZATION = 'unknown-authorization';

export interface AuthorizationRequest {
  paymentMethod: PaymentMethod;
  amountCents: number;
  currency: string;
  /** The merchant's reference (the checkout): every later operation on it is filed under it. */
  reference: string;
}

/**
 * Which authorization a void is about: its id, or (when our record of it may never have
 * committed) the idempotency key it was requested with, as gateways allow cancelling by the
 * merchant's own reference after a timeout.
 */
export type VoidTarget = { authorizationId: string } | { authorizationKey: string };

/**
 * A card gateway as payment providers offer them: every call carries an idempotency key, and the
 * same key always gets the same response without a second effect. The app reaches the gateway
 * service over HTTP (HttpCardGateway, CARD_GATEWAY_URL), through callOutside('card-gateway', ...),
 * so that a gateway that does not respond spends attempts rather than passing for our outage
 * (ADR 0093); what it did is known only by asking it (ADR 0110).
 */
export abstract class CardGateway {
  /** Whether a void may name its authorization by key (CARD_GATEWAY_VOIDS_BY_KEY); by id it always may. */
  abstract readonly voidsByKey: boolean;
  abstract authorize(key: string, request: AuthorizationRequest): Promise<GatewayResponse>;
  abstract capture(key: string, authorizationId: string): Promise<GatewayResponse>;
  abstract void(key: string, target: VoidTarget): Promise<GatewayResponse>;
  abstract refund(key: string, authorizationId: string): Promise<GatewayResponse>;
  /**
   * Every operation the gateway filed under a merchant's reference, approved or not. An answer,
   * or a throw: a look-up that went unanswered is never "none".
   */
  abstract operationsFiledUnder(reference: string): Promise<FiledOperation[]>;

  /** The authorizations the gateway approved under a merchant's reference, each with what it approved on it since. */
  async authorizationsFiledUnder(reference: string): Promise<FiledAuthorization[]> {
    return authorizationsIn(await this.operationsFiledUnder(reference));
  }
}

/** The approved authorizations among a reference's operations, each with the operations approved on it since. */
export function authorizationsIn(operations: FiledOperation[]): FiledAuthorization[] {
  const approved = operations.filter((each) => each.approved && each.authorizationId !== null);
  return approved
    .filter((each) => each.operation === 'authorize')
    .map(({ authorizationId }) => ({
      authorizationId: authorizationId!,
      done: approved
        .filter((each) => each.operation !== 'authorize' && each.authorizationId === authorizationId)
        .map((each) => each.operation),
    }));
}
