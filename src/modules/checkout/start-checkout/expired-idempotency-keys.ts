import { Inject, Injectable } from '@nestjs/common';
import { PeriodicTasks } from '../../../infra/scheduling/periodic-tasks';
import { checkoutConfig, type CheckoutConfig } from '../checkout.config';
import { IdempotencyKeysRepository } from '../database/idempotency-keys.repository';

const PURGE_BATCH = 1_000;
const PURGE_INTERVAL_MS = 600_000;

/**
 * Deletes Idempotency-Keys past CHECKOUT_IDEMPOTENCY_TTL_HOURS, a batch at a time. An expired key
 * is already ignored when it comes again; this only keeps the table from growing for ever. Runs
 * with the housekeeping, in the relay role.
 */
@Injectable()
export class ExpiredIdempotencyKeys {
  constructor(
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    tasks: PeriodicTasks,
    @Inject(checkoutConfig.KEY) private readonly config: CheckoutConfig,
  ) {
    tasks.register('expired-idempotency-keys', 'relay', PURGE_INTERVAL_MS, async () => {
      await this.purge();
    });
  }

  /** How many keys went. */
  async purge(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.idempotencyKeys.deleteExpired(this.config.idempotencyTtlHours, PURGE_BATCH);
      total += deleted;
      if (deleted < PURGE_BATCH) return total;
    }
  }
}
