/** One operation as a gateway lists it under a merchant's reference. */
export interface FiledOperation {
  operation: string;
  approved: boolean;
  authorizationId: string | null;
}

/** The money of one reference (a checkout) at the gateway, from the operations it approved under it. */
export interface FiledMoney {
  /** Approved authorizations that nothing (capture, void, refund) followed: money held on the card. */
  held: number;
  /** Approved captures. */
  captures: number;
  /** Approved captures whose authorization was not refunded: money taken. */
  charged: number;
  /** Approved refunds. */
  refunds: number;
}

/**
 * Counts the money in a gateway's listing of a reference, as the invariants count it: every
 * approved operation counts, so that a second capture shows as a 2. A declined one is no money.
 */
export function moneyIn(operations: readonly FiledOperation[]): FiledMoney {
  const approved = operations.filter((each) => each.approved);
  const on = (authorizationId: string | null, ...kinds: string[]) =>
    approved.some((each) => each.authorizationId === authorizationId && kinds.includes(each.operation));
  const authorizations = approved.filter((each) => each.operation === 'authorize');
  const captures = approved.filter((each) => each.operation === 'capture');
  return {
    held: authorizations.filter((each) => !on(each.authorizationId, 'capture', 'void', 'refund')).length,
    captures: captures.length,
    charged: captures.filter((each) => !on(each.authorizationId, 'refund')).length,
    refunds: approved.filter((each) => each.operation === 'refund').length,
  };
}
