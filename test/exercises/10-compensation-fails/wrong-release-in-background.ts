import { Logger } from '@nestjs/common';
import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

const logger = new Logger('ReleaseHold');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A learner's words: "The compensation should not hold up the queue while the gateway is down.
 * I answer at once that the hold is released, and keep trying the void in the background (ten
 * times, a few hundred milliseconds apart): the gateway is surely back by then."
 *
 * What it gets wrong: the answer says "voided" before anything was voided. The checkout ends
 * FAILED, as if it had been undone, while the money is still held; the retries run where no one
 * sees them, and die with them (or with the process). Nobody is asked, nobody is shown what is
 * at stake.
 */
export async function releaseHold(checkoutId: string, voidAtGateway: () => Promise<VoidOutcome>): Promise<VoidOutcome> {
  void (async () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      try {
        await voidAtGateway();
        return;
      } catch (error) {
        logger.warn(`Background void of checkout ${checkoutId} failed (try ${attempt} of 10): ${String(error)}`);
        await pause(300);
      }
    }
  })();
  return { outcome: 'voided', isNew: true };
}
