import { randomUUID } from 'node:crypto';
import { OperationsStore, type OperationsTransaction } from './database/operations.store';
import {
  captureRefusal,
  type GatewayResponse,
  type Operation,
  refundRefusal,
  responseOn,
  type StoredAuthorization,
  type TestToken,
  UNKNOWN_AUTHORIZATION,
  VOIDED_BEFORE_AUTHORIZATION,
  voidRefusal,
} from './domain/operations';

export interface AuthorizeRequest {
  paymentMethod: TestToken;
  amountCents: number;
  currency: string;
  /** The merchant's reference (a checkout): every later operation on the authorization is filed under it. */
  reference: string;
}

/** An authorization, by its id, or (for a void) by the idempotency key it was requested with. */
export type AuthorizationTarget = { authorizationId: string } | { authorizationKey: string };

/**
 * Where a lab turns the next decisions into declines. Outside a lab nothing does: the business
 * code asks, and the answer is no.
 */
export abstract class Declines {
  abstract take(operation: Operation): boolean;
}

export class NoDeclines extends Declines {
  take(): boolean {
    return false;
  }
}

/** What the gateway decided about one request, and whether it keeps it for the key. */
interface Decision {
  response: GatewayResponse;
  reference: string | null;
  authorizationId: string | null;
  paymentMethod: string | null;
  /** A request about an authorization the gateway does not know is not remembered. */
  remembered: boolean;
}

/**
 * The card gateway, as payment providers offer one: every call carries an idempotency key, and the
 * same key always gets the same response without a second effect. An authorization is captured or
 * voided once, and only a captured one is refunded; each operation is filed under the merchant's
 * reference. A void by key that finds nothing leaves a tombstone: the authorization it was about,
 * if it comes later, is refused.
 */
export class CardGatewayService {
  constructor(
    private readonly store: OperationsStore,
    private readonly declines: Declines = new NoDeclines(),
  ) {}

  authorize(key: string, request: AuthorizeRequest): Promise<GatewayResponse> {
    return this.once('authorize', key, async (tx) => {
      const filed = { reference: request.reference, paymentMethod: request.paymentMethod, remembered: true };
      if (await tx.isBuried(key)) {
        return { ...filed, response: { approved: false, reason: VOIDED_BEFORE_AUTHORIZATION }, authorizationId: null };
      }
      if (request.paymentMethod === 'pm_card_declined') {
        return { ...filed, response: { approved: false, reason: 'card-declined' }, authorizationId: null };
      }
      const authorizationId = `auth_${randomUUID()}`;
      return { ...filed, response: { approved: true, authorizationId }, authorizationId };
    });
  }

  capture(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.onAuthorization('capture', key, { authorizationId }, captureRefusal);
  }

  void(key: string, target: AuthorizationTarget): Promise<GatewayResponse> {
    return this.onAuthorization('void', key, target, voidRefusal);
  }

  refund(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.onAuthorization('refund', key, { authorizationId }, refundRefusal);
  }

  private onAuthorization(
    operation: Operation,
    key: string,
    target: AuthorizationTarget,
    refusal: (authorization: StoredAuthorization) => string | undefined,
  ): Promise<GatewayResponse> {
    return this.once(operation, key, async (tx) => {
      // By key: the authorization may be in flight; its turn comes before or after this one, never beside it.
      if ('authorizationKey' in target) await tx.lock(`authorize:${target.authorizationKey}`);
      const authorization = await lockAuthorization(tx, target);
      if (!authorization) {
        if ('authorizationKey' in target) await tx.bury(target.authorizationKey, key);
        return unknown('authorizationId' in target ? target.authorizationId : null);
      }
      return {
        response: responseOn(authorization, refusal(authorization)),
        reference: authorization.reference,
        authorizationId: authorization.id,
        paymentMethod: authorization.paymentMethod,
        remembered: true,
      };
    });
  }

  /**
   * The first response to (operation, key) is kept; every later call gets it back. Calls with one
   * key, and operations on one authorization, take their turn.
   */
  private async once(
    operation: Operation,
    key: string,
    decide: (tx: OperationsTransaction) => Promise<Decision>,
  ): Promise<GatewayResponse> {
    const kept = async (tx: OperationsTransaction) =>
      (await tx.responseTo(operation, key)) as GatewayResponse | undefined;
    return this.store.once(`${operation}:${key}`, kept, async (tx) => {
      const decision = await decide(tx);
      const made =
        decision.response.approved && this.declines.take(operation) ? declined(operation, decision) : decision;
      if (made.remembered) {
        await tx.remember({
          operation,
          idempotencyKey: key,
          response: made.response,
          approved: made.response.approved,
          reference: made.reference,
          authorizationId: made.authorizationId,
          paymentMethod: made.paymentMethod,
        });
      }
      return made.response;
    });
  }
}

/** The approved authorization that `target` names, locked for this call, with what was done on it. */
async function lockAuthorization(
  tx: OperationsTransaction,
  target: AuthorizationTarget,
): Promise<StoredAuthorization | undefined> {
  const authorization = await tx.approvedAuthorization(
    'authorizationId' in target ? { id: target.authorizationId } : { key: target.authorizationKey },
  );
  if (!authorization) return undefined;
  await tx.lock(`authorization:${authorization.id}`);
  return { ...authorization, done: await tx.approvedOperationsOn(authorization.id) };
}

const unknown = (authorizationId: string | null): Decision => ({
  response: { approved: false, reason: UNKNOWN_AUTHORIZATION },
  reference: null,
  authorizationId,
  paymentMethod: null,
  remembered: false,
});

/** A lab's decline: an authorization it turns down holds nothing, so it keeps no id. */
const declined = (operation: Operation, decision: Decision): Decision => ({
  ...decision,
  response: { approved: false, reason: 'injected-decline' },
  authorizationId: operation === 'authorize' ? null : decision.authorizationId,
});
