import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

/**
 * A compensation fails like any other call: it says so. The failure goes back to the queue, which
 * retries it with backoff (the gateway may be back in a second), and after the last attempt stops
 * and asks a person: the checkout waits in INTERVENTION, with the held money shown as at stake,
 * until someone resumes it. Nothing is given up on, and nothing is retried where no one sees it.
 */
export async function releaseHold(checkoutId: string, voidAtGateway: () => Promise<VoidOutcome>): Promise<VoidOutcome> {
  try {
    return await voidAtGateway();
  } catch (error) {
    throw new Error(`The hold of checkout ${checkoutId} is not released yet: ${String(error)}`, { cause: error });
  }
}
