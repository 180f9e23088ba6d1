import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import { MetricsRegistry } from '../../infra/metrics/metrics.registry';
import { checkoutConfig, type CheckoutConfig } from './checkout.config';
import type { CheckoutRow } from './database/checkouts.repository';

/** Checkouts by mode and status, the stuck ones, and how long each took to reach its outcome. */
@Injectable()
export class CheckoutMetrics {
  private readonly duration: Histogram<'mode' | 'outcome'>;

  constructor(
    registry: MetricsRegistry,
    private readonly dataSource: DataSource,
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
    const byStatus: Gauge<'mode' | 'status'> = new Gauge({
      name: 'checkouts',
      help: 'Checkouts by mode and status',
      labelNames: ['mode', 'status'],
      registers,
      collect: async () => {
        const rows = await this.read<Array<{ mode: string; status: string; count: string }>>(
          `SELECT mode, status, count(*) AS count FROM checkout.checkouts GROUP BY mode, status`,
        );
        if (!rows) return;
        byStatus.reset();
        for (const { mode, status, count } of rows) byStatus.set({ mode, status }, Number(count));
      },
    });
    const stuck: Gauge<'mode'> = new Gauge({
      name: 'checkouts_stuck',
      help: 'Checkouts still PENDING after CHECKOUT_STUCK_AFTER_MS, by mode',
      labelNames: ['mode'],
      registers,
      collect: async () => {
        const rows = await this.read<Array<{ mode: string; count: string }>>(
          `SELECT mode, count(*) AS count FROM checkout.checkouts
            WHERE status = 'PENDING' AND created_at < clock_timestamp() - make_interval(secs => $1)
            GROUP BY mode`,
          [this.config.stuckAfterMs / 1_000],
        );
        if (!rows) return;
        stuck.reset();
        for (const mode of ['choreography', 'orchestration']) stuck.set({ mode }, 0);
        for (const { mode, count } of rows) stuck.set({ mode }, Number(count));
      },
    });
  }

  /** Called when a checkout reaches its final status (it happens once: a final status never changes). */
  observeOutcome(checkout: Pick<CheckoutRow, 'mode' | 'status' | 'created_at'>): void {
    const seconds = (Date.now() - checkout.created_at.getTime()) / 1_000;
    this.duration.observe({ mode: checkout.mode, outcome: checkout.status.toLowerCase() }, seconds);
  }

  private async read<T>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    try {
      return await this.dataSource.query<T>(sql, params);
    } catch {
      return undefined; // a scrape answers even when Postgres does not
    }
  }
}
