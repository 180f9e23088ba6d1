import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { MetricsRegistry } from '../../../infra/metrics/metrics.registry';

/** Sagas by state, read at each scrape. */
@Injectable()
export class SagaMetrics {
  constructor(registry: MetricsRegistry, dataSource: DataSource) {
    const byState: Gauge<'state'> = new Gauge({
      name: 'sagas',
      help: 'Orchestrated checkouts by saga state',
      labelNames: ['state'],
      registers: [registry],
      collect: async () => {
        const rows = await dataSource
          .query<Array<{ status: string; count: string }>>(
            `SELECT status, count(*) AS count FROM checkout.sagas GROUP BY status`,
          )
          .catch(() => undefined);
        if (!rows) return;
        byState.reset();
        for (const { status, count } of rows) byState.set({ state: status }, Number(count));
      },
    });
  }
}
