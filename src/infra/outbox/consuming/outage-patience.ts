import type { OutboxConfig } from '../outbox.config';
import type { Subscription } from './subscriptions';

/**
 * The retries of a consumer that waits out its participant's outages: its own number of attempts
 * before the dead letter, and after a failed attempt a wait that doubles from OUTBOX_BACKOFF_MS up
 * to OUTBOX_OUTAGE_MAX_WAIT_MS (ADR 0109). Undefined for every other consumer, whose retries are
 * the jobs' own.
 */
export interface OutagePatience {
  attempts: number;
  /** How long to wait after failed attempt `attempt` (1 for the first). */
  waitAfter(attempt: number): number;
}

export function outagePatienceOf(
  config: Pick<OutboxConfig, 'backoffMs' | 'outage'>,
  subscription: Pick<Subscription, 'waitsOutOutages'>,
): OutagePatience | undefined {
  if (!subscription.waitsOutOutages) return undefined;
  const { attempts, maxWaitMs } = config.outage;
  const waitAfter = (attempt: number) =>
    Math.min(config.backoffMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30), maxWaitMs);
  return { attempts, waitAfter };
}
