import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

/**
 * The reference answer in another style: instead of throwing, it answers what happened, "not
 * voidable (yet)", with the gateway's reason. Billing's compensation treats that answer as a
 * failure like any other: the queue retries it with backoff, and after the last attempt the
 * checkout waits for a person (INTERVENTION), who is shown the held money.
 */
export async function releaseHold(checkoutId: string, voidAtGateway: () => Promise<VoidOutcome>): Promise<VoidOutcome> {
  try {
    return await voidAtGateway();
  } catch (error) {
    return {
      outcome: 'not-voidable',
      reason: `the gateway did not release the hold of ${checkoutId}: ${String(error)}`,
    };
  }
}
