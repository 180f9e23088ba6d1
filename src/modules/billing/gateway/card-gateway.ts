import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { GatewayRecords, type GatewayTransaction } from '../database/gateway-records';
import type { PaymentMethod } from '../../checkout/contracts';
import type { FiledAuthorization } from '../domain/filed-authorizations';
import type { FiledOperation } from '../domain/filed-money';

export type GatewayResponse = { approved: true; authorizationId: string } | { approved: false; reason: string };

/** The gateway has no authorization by that id or key: nothing was ever held under it. */
export const UNKNOWN_AUTHORIZATION = 'unknown-authorization';
/** A gateway without cancellation by key (CARD_GATEWAY_VOIDS_BY_KEY=false) refuses a void that names one. */
export const VOID_BY_KEY_NOT_OFFERED = 'void-by-key-not-offered';

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
 * same key always gets the same response without a second effect. With CARD_GATEWAY_URL set, the
 * app talks to the gateway service over HTTP (HttpCardGateway), through callOutside('card-gateway',
 * ...), so that a gateway that does not respond spends attempts rather than passing for our outage
 * (ADR 0093); unset, to the fake below, which talks to our own Postgres only, whose failures are ours.
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

type Operation = 'authorize' | 'capture' | 'void' | 'refund';

/** A decision of the gateway; one about an authorization it does not know is not remembered. */
interface Decision {
  response: GatewayResponse & Record<string, unknown>;
  authorizationId: string | null;
  reference: string | null;
  remembered: boolean;
}

/**
 * A fake gateway that understands the test card tokens: `pm_card_ok` authorizes and captures,
 * `pm_card_declined` is declined at authorization, `pm_card_capture_declined` authorizes and is
 * declined at capture. An authorization is captured or voided once, and only a captured one is
 * refunded. Its memory lives in `billing.gateway_requests` (GatewayRecords), in transactions of
 * its own, outside the caller's. Each operation is filed under the authorization it concerns and
 * the merchant's reference, which is what the invariants count. An authorization costs two round
 * trips, a capture, a void or a refund four.
 */
@Injectable()
export class FakeCardGateway extends CardGateway {
  constructor(
    private readonly records: GatewayRecords,
    readonly voidsByKey = true,
  ) {
    super();
  }

  authorize(key: string, request: AuthorizationRequest): Promise<GatewayResponse> {
    return this.once('authorize', key, async () => {
      const approved = request.paymentMethod !== 'pm_card_declined';
      const authorizationId = approved ? `auth_${randomUUID()}` : null;
      return {
        response: approved
          ? { approved, authorizationId: authorizationId!, ...request }
          : { approved, reason: 'card-declined' },
        authorizationId,
        reference: request.reference,
        remembered: true,
      };
    });
  }

  capture(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.once('capture', key, async (records) => {
      const authorization = await this.lockAuthorization(records, { authorizationId });
      if (!authorization) return unknown(authorizationId);
      const refusal = authorization.done.includes('void')
        ? 'authorization-voided'
        : authorization.done.includes('capture')
          ? 'already-captured'
          : authorization.paymentMethod === 'pm_card_capture_declined'
            ? 'capture-declined'
            : undefined;
      return decided(authorization, refusal);
    });
  }

  void(key: string, target: VoidTarget): Promise<GatewayResponse> {
    // Refused before anything is read or kept, as the service's 422 is.
    if ('authorizationKey' in target && !this.voidsByKey) {
      return Promise.reject(new Error(`the gateway voids by authorization id only: ${VOID_BY_KEY_NOT_OFFERED}`));
    }
    return this.once('void', key, async (records) => {
      const authorization = await this.lockAuthorization(records, target);
      if (!authorization) return unknown('authorizationId' in target ? target.authorizationId : null);
      return decided(authorization, authorization.done.includes('capture') ? 'already-captured' : undefined);
    });
  }

  refund(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.once('refund', key, async (records) => {
      const authorization = await this.lockAuthorization(records, { authorizationId });
      if (!authorization) return unknown(authorizationId);
      return decided(authorization, authorization.done.includes('capture') ? undefined : 'not-captured');
    });
  }

  operationsFiledUnder(reference: string): Promise<FiledOperation[]> {
    return this.records.transaction((records) => records.filedUnder(reference));
  }

  /**
   * The first response to (operation, key) is kept; every later call gets it back. Calls with one
   * key, and operations on one authorization, take their turn.
   */
  private once(
    operation: Operation,
    key: string,
    decide: (records: GatewayTransaction) => Promise<Decision>,
  ): Promise<GatewayResponse> {
    return this.records.transaction(async (records) => {
      await records.lock(`gateway:${operation}:${key}`);
      const stored = await records.responseTo<GatewayResponse>(operation, key);
      if (stored) return stored;
      const decision = await decide(records);
      if (decision.remembered) {
        // Its failure fails the COMMIT it rides with.
        await records.remember({
          operation,
          idempotencyKey: key,
          response: decision.response,
          reference: decision.reference,
          authorizationId: decision.authorizationId,
        });
      }
      return decision.response;
    });
  }

  /** An approved authorization, locked for this call, with the operations already approved on it. */
  private async lockAuthorization(
    records: GatewayTransaction,
    target: VoidTarget,
  ): Promise<{ id: string; reference: string | null; paymentMethod: string; done: string[] } | undefined> {
    const authorization = await records.approvedAuthorization({
      authorizationId: 'authorizationId' in target ? target.authorizationId : null,
      authorizationKey: 'authorizationKey' in target ? target.authorizationKey : null,
    });
    if (!authorization) return undefined;
    await records.lock(`gateway:authorization:${authorization.id}`);
    return { ...authorization, done: await records.approvedOperationsOn(authorization.id) };
  }
}

const unknown = (authorizationId: string | null): Decision => ({
  response: { approved: false, reason: UNKNOWN_AUTHORIZATION },
  authorizationId,
  reference: null,
  remembered: false,
});

const decided = (authorization: { id: string; reference: string | null }, refusal: string | undefined): Decision => ({
  response: refusal ? { approved: false, reason: refusal } : { approved: true, authorizationId: authorization.id },
  authorizationId: authorization.id,
  reference: authorization.reference,
  remembered: true,
});
