import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '../../infra/metrics/metrics.registry';
import { checkoutConfig, type CheckoutConfig, CHECKOUT_MODES } from './checkout.config';
import type { CheckoutRow } from './database/checkouts.repository';
import { OpenCheckoutsQuery } from './database/open-checkouts.query';

/** A checkout's statuses while it is not finished: the ones `checkouts{mode,status}` counts. */
const OPEN = ['PENDING', 'INTERVENTION'] as const;

/** Open checkouts by mode and status, the stuck ones, the oldest pending, and how long each took to reach its outcome. */
@Injectable()
export class CheckoutMetrics {
  private readonly duration: Histogram<'mode' | 'outcome'>;

  constructor(
    registry: MetricsRegistry,
    private readonly openCheckouts: OpenCheckoutsQuery,
    @Inject(checkoutConfig.KEY) private readonly config: CheckoutConfig,
  ) {
    const registers = [registry];
    this.duration = new Histogram({
      name: 'checkout_duration_seconds',
      help: 'From a checkout being requested to its outcome (COMPLETED, REJECTED or FAILED), by mode',
      labelNames: ['mode', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    // One reading for the three gauges, over the open checkouts only, through the status index: it
    // costs the same however many finished checkouts the table holds (ADR 0078).
    const open = registry.reading('checkouts', () =>
      this.openCheckouts.byModeAndStatus(this.config.stuckAfterMs / 1_000),
    );
    const byStatus: Gauge<'mode' | 'status'> = new Gauge({
      name: 'checkouts',
      help: 'Open checkouts (PENDING, INTERVENTION) by mode and status; the finished ones are checkout_duration_seconds_count',
      labelNames: ['mode', 'status'],
      registers,
      collect: async () => {
        const rows = await open.get();
        if (!rows) return;
        for (const mode of CHECKOUT_MODES) for (const status of OPEN) byStatus.set({ mode, status }, 0);
        for (const { mode, status, count } of rows) byStatus.set({ mode, status }, count);
      },
    });
    const stuck: Gauge<'mode'> = new Gauge({
      name: 'checkouts_stuck',
      help: 'Checkouts still PENDING after CHECKOUT_STUCK_AFTER_MS, by mode',
      labelNames: ['mode'],
      registers,
      collect: async () => {
        const rows = await open.get();
        if (!rows) return;
        for (const mode of CHECKOUT_MODES) stuck.set({ mode }, 0);
        for (const row of rows) if (row.status === 'PENDING') stuck.set({ mode: row.mode }, row.stuck);
      },
    });
    // A choreographed checkout PENDING for long is one the watchdog did not catch; an orchestrated
    // one, a saga that stopped moving (saga_oldest_age_seconds says which state).
    const oldestPending: Gauge<'mode'> = new Gauge({
      name: 'checkout_oldest_pending_age_seconds',
      help: 'Age of the oldest checkout still PENDING, by mode (0 when none)',
      labelNames: ['mode'],
      registers,
      collect: async () => {
        const rows = await open.get();
        if (!rows) return;
        for (const mode of CHECKOUT_MODES) oldestPending.set({ mode }, 0);
        for (const row of rows) if (row.status === 'PENDING') oldestPending.set({ mode: row.mode }, row.oldest_age);
      },
    });
  }

  /** Called when a checkout reaches its final status (it happens once: a final status never changes). */
  observeOutcome(checkout: Pick<CheckoutRow, 'mode' | 'status' | 'created_at'>): void {
    const seconds = (Date.now() - checkout.created_at.getTime()) / 1_000;
    this.duration.observe({ mode: checkout.mode, outcome: checkout.status.toLowerCase() }, seconds);
  }
}
