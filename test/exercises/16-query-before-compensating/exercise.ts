import type { FiledAuthorization } from '../../../src/modules/billing/domain/filed-authorizations';
import type { GatewayResponse } from '../../../src/modules/billing/gateway/card-gateway';

export type { FiledAuthorization, GatewayResponse };

/**
 * The card gateway as this exercise's billing reaches it: a third party that voids by its own
 * authorization id only (no cancellation by our key), and lists what it filed under a reference.
 */
export interface GatewayWithoutVoidByKey {
  /**
   * The authorizations the gateway approved under `reference` (our checkout's id), each with the
   * operations it approved on it since (`done`: `capture`, `void`, `refund`). Throws when the
   * look-up went unanswered (a timeout, a 502): then what the gateway holds is not known.
   */
  authorizationsFiledUnder(reference: string): Promise<FiledAuthorization[]>;
  /**
   * Asks the gateway to void one authorization by its id: approved, or refused with a reason
   * (`already-captured`). Every attempt of the compensation sends it under the same key, so a
   * second void of one authorization is the first one's answer again, not a second effect. Throws
   * when unanswered.
   */
  voidById(authorizationId: string): Promise<GatewayResponse>;
}

/**
 * Exercise 16: query before compensating. What starter.ts, solution.ts and every wrong-*.ts export.
 */
export interface QueryBeforeCompensating {
  /**
   * Billing's void (the authorization's compensation) for a checkout of which billing holds no
   * payment: our record never committed, though the gateway may have approved the authorization.
   *
   * Resolve, and billing records the checkout as voided (a tombstone naming the authorization you
   * resolve with, or `null` for "the gateway never held anything"), and the saga carries on undoing
   * the checkout, which ends FAILED. Throw, and the compensation has not finished: the saga sends
   * it again after a backoff, and after its last attempt the checkout waits for a person
   * (INTERVENTION), whose retry runs it again.
   */
  voidWhatIsFiled(checkoutId: string, gateway: GatewayWithoutVoidByKey): Promise<string | null>;
}
