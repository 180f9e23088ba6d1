import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A plausible wrong answer: never give up on a compensation, try again until the gateway releases
 * the hold. Nothing is lost, but while the gateway is down the checkout stays "in progress", the
 * delivery holds its worker, and no one is ever told that the buyer's money is stuck.
 */
export async function releaseHold(
  _checkoutId: string,
  voidAtGateway: () => Promise<VoidOutcome>,
): Promise<VoidOutcome> {
  for (;;) {
    try {
      return await voidAtGateway();
    } catch {
      await pause(200);
    }
  }
}
