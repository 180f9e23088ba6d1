import { ParticipantClient } from '../../../infra/http/participant-client';
import type { FiledOperation } from '../domain/filed-money';
import { type AuthorizationRequest, CardGateway, type GatewayResponse, type VoidTarget } from './card-gateway';
import type { CardGatewayConfig } from './card-gateway.config';

/**
 * The card gateway service at CARD_GATEWAY_URL, over HTTP (ParticipantClient): the key in
 * the Idempotency-Key header, at most CARD_GATEWAY_TIMEOUT_MS per request, and up to
 * CARD_GATEWAY_ATTEMPTS requests on a 502, a 503 or a refused connection only. A timeout surfaces
 * as the gateway's failure (callOutside, ADR 0093), and the delivery's next attempt asks again
 * under the same key. The look-up of a reference is a GET; unanswered, it fails as a call does.
 */
export class HttpCardGateway extends CardGateway {
  readonly voidsByKey: boolean;
  private readonly http: ParticipantClient;

  constructor(config: CardGatewayConfig) {
    super();
    this.voidsByKey = config.voidsByKey;
    this.http = new ParticipantClient('card-gateway', config);
  }

  authorize(key: string, request: AuthorizationRequest): Promise<GatewayResponse> {
    return this.call('authorizations', key, request);
  }

  capture(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.call('captures', key, { authorizationId });
  }

  void(key: string, target: VoidTarget): Promise<GatewayResponse> {
    return this.call('voids', key, target);
  }

  refund(key: string, authorizationId: string): Promise<GatewayResponse> {
    return this.call('refunds', key, { authorizationId });
  }

  operationsFiledUnder(reference: string): Promise<FiledOperation[]> {
    return this.http.get(`references/${encodeURIComponent(reference)}/operations`, listingIn);
  }

  private call(path: string, key: string, body: object): Promise<GatewayResponse> {
    return this.http.post(path, key, body, decisionIn);
  }
}

/** The gateway's decision, checked: a body that is not one is the gateway's failure, not a decline. */
function decisionIn(text: string): GatewayResponse {
  const body = JSON.parse(text) as Partial<{ approved: unknown; authorizationId: unknown; reason: unknown }>;
  if (body.approved === true && typeof body.authorizationId === 'string') {
    return { approved: true, authorizationId: body.authorizationId };
  }
  if (body.approved === false && typeof body.reason === 'string') return { approved: false, reason: body.reason };
  throw new Error(`answered a body that is no decision: ${text.slice(0, 300)}`);
}

/** The gateway's listing of a reference, checked: a body that is not one is the gateway's failure, never "none". */
function listingIn(text: string): FiledOperation[] {
  const body = JSON.parse(text) as { operations?: unknown };
  if (!Array.isArray(body.operations)) throw new Error(`answered a body that is no listing: ${text.slice(0, 300)}`);
  return body.operations.map((each: Partial<Record<keyof FiledOperation, unknown>>) => {
    if (typeof each.operation !== 'string' || typeof each.approved !== 'boolean') {
      throw new Error(`answered a listing with an operation it cannot read: ${JSON.stringify(each).slice(0, 300)}`);
    }
    const authorizationId = typeof each.authorizationId === 'string' ? each.authorizationId : null;
    return { operation: each.operation, approved: each.approved, authorizationId };
  });
}
