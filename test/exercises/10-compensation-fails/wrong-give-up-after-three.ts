import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

/** How often each checkout's void has failed, so far. */
const failures = new Map<string, number>();

/**
 * A learner's words: "I let the failure reach the queue, so that it retries with backoff. But
 * retrying for ever is wrong too, so I count the failures, and after three I stop: I answer that
 * the hold is released and let the bank's expiry take care of it."
 *
 * What it gets wrong: the bound is right, what it does at the bound is not. It stops by
 * pretending, and the count lives in the process's memory besides: the transport's own last
 * attempt, which would have asked a person, never comes. The checkout ends FAILED with the money
 * held, and no one knows.
 */
export async function releaseHold(checkoutId: string, voidAtGateway: () => Promise<VoidOutcome>): Promise<VoidOutcome> {
  try {
    return await voidAtGateway();
  } catch (error) {
    const failed = (failures.get(checkoutId) ?? 0) + 1;
    failures.set(checkoutId, failed);
    if (failed >= 3) return { outcome: 'voided', isNew: true };
    throw error;
  }
}
