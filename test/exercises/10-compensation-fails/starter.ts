import { Logger } from '@nestjs/common';
import type { VoidOutcome } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';

const logger = new Logger('ReleaseHold');

/**
 * Written on the happy path: the void is assumed to work, and when it does not, the failure is
 * logged and the compensation carries on as if it had. Run `npm run exercise -- 10` and look at the
 * buyer's card once the checkout has ended.
 *
 * TODO: when the gateway does not release the hold, make sure the money is never left held without
 * anyone knowing: neither pretend it is done, nor keep trying for ever where nobody sees it.
 */
export async function releaseHold(checkoutId: string, voidAtGateway: () => Promise<VoidOutcome>): Promise<VoidOutcome> {
  try {
    return await voidAtGateway();
  } catch (error) {
    // An authorization nobody captures expires at the bank after a few days anyway.
    logger.warn(`Could not release the hold of checkout ${checkoutId}: ${String(error)}`);
    return { outcome: 'voided', isNew: true };
  }
}
