/** What the gateway does, each under the caller's idempotency key. */
export const OPERATIONS = ['authorize', 'capture', 'void', 'refund'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * The test card tokens: `pm_card_ok` authorizes and captures, `pm_card_declined` is declined at
 * authorization, `pm_card_capture_declined` authorizes and is declined at capture.
 */
export const TEST_TOKENS = ['pm_card_ok', 'pm_card_declined', 'pm_card_capture_declined'] as const;
export type TestToken = (typeof TEST_TOKENS)[number];

export type GatewayResponse = { approved: true; authorizationId: string } | { approved: false; reason: string };

/** Nothing was ever held under that id or key. */
export const UNKNOWN_AUTHORIZATION = 'unknown-authorization';
/** A void by the authorization's key came first: the authorization is refused when it comes. */
export const VOIDED_BEFORE_AUTHORIZATION = 'voided-before-authorization';

/** One operation as the gateway keeps it: the response is given again for the same key. */
export interface OperationRecord {
  operation: Operation;
  idempotencyKey: string;
  response: Record<string, unknown>;
  approved: boolean;
  /** The merchant's reference (a checkout) the operation is filed under. */
  reference: string | null;
  authorizationId: string | null;
  paymentMethod: string | null;
  createdAt: string;
}

/** An approved authorization, with the operations already approved on it. */
export interface StoredAuthorization {
  id: string;
  reference: string | null;
  paymentMethod: string;
  done: Operation[];
}

/** Why a capture of this authorization is refused, if it is. */
export function captureRefusal(authorization: StoredAuthorization): string | undefined {
  if (authorization.done.includes('void')) return 'authorization-voided';
  if (authorization.done.includes('capture')) return 'already-captured';
  if (authorization.paymentMethod === 'pm_card_capture_declined') return 'capture-declined';
  return undefined;
}

/** Why a void of this authorization is refused, if it is: captured money is refunded, not voided. */
export const voidRefusal = (authorization: StoredAuthorization): string | undefined =>
  authorization.done.includes('capture') ? 'already-captured' : undefined;

/** Why a refund of this authorization is refused, if it is: only captured money goes back. */
export const refundRefusal = (authorization: StoredAuthorization): string | undefined =>
  authorization.done.includes('capture') ? undefined : 'not-captured';

/** The response to an operation on an authorization: approved, or refused for `refusal`. */
export const responseOn = (authorization: StoredAuthorization, refusal: string | undefined): GatewayResponse =>
  refusal ? { approved: false, reason: refusal } : { approved: true, authorizationId: authorization.id };
