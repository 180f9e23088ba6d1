import { Logger } from '@nestjs/common';
import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

const logger = new Logger('ReleaseHold');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A learner's words: "A gateway that is down is usually back within a second. So I try the void
 * three times, a little apart; if it still fails, it is not a blip, and I carry on: the bank lets
 * an authorization nobody captures expire after a few days anyway."
 *
 * What it gets wrong: after the third try it still pretends the hold was released. The checkout
 * ends FAILED as if all were undone, the money stays held, and no person is ever asked.
 */
export async function releaseHold(checkoutId: string, voidAtGateway: () => Promise<VoidOutcome>): Promise<VoidOutcome> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await voidAtGateway();
    } catch (error) {
      logger.warn(`Void of checkout ${checkoutId} failed (try ${attempt} of 3): ${String(error)}`);
      await pause(100 * attempt);
    }
  }
  logger.error(`Giving up on releasing the hold of checkout ${checkoutId}; it expires at the bank`);
  return { outcome: 'voided', isNew: true };
}
