/** An authorization a gateway approved under a merchant's reference, with what it approved on it since. */
export interface FiledAuthorization {
  authorizationId: string;
  /** The operations approved on it after it: `capture`, `void`, `refund`. */
  done: string[];
}

/**
 * What a void with no payment row of ours does, once the gateway has answered what it filed under
 * the checkout: void each authorization still held, and record the first one found (voided now or
 * before, by an attempt whose tombstone never committed) on the tombstone. Captured money is not
 * voided, and not ours to leave as it is: it is a person's (a refund, or an answer).
 */
export type FiledVoidDecision =
  { kind: 'void'; held: string[]; found: string | null } | { kind: 'captured'; authorizationId: string };

export function decideVoidOfFiled(filed: FiledAuthorization[]): FiledVoidDecision {
  const captured = filed.find((authorization) => authorization.done.includes('capture'));
  if (captured) return { kind: 'captured', authorizationId: captured.authorizationId };
  return {
    kind: 'void',
    held: filed.filter((authorization) => !authorization.done.includes('void')).map((each) => each.authorizationId),
    found: filed[0]?.authorizationId ?? null,
  };
}
