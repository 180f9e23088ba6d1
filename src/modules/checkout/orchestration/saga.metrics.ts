import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { MetricsRegistry } from '../../../infra/metrics/metrics.registry';

/** A saga's states until it ends (COMPLETED or COMPENSATED): the ones `sagas{state}` counts. */
const OPEN = ['RUNNING', 'COMPENSATING', 'INTERVENTION'] as const;

/**
 * Open sagas by state, read through the status index: the figure costs the same however many
 * ended sagas the table holds (ADR 0078).
 */
@Injectable()
export class SagaMetrics {
  constructor(registry: MetricsRegistry, dataSource: DataSource) {
    const open = registry.reading('sagas', () =>
      dataSource.query<Array<{ status: string; count: number }>>(
        `SELECT status, count(*)::int AS count FROM checkout.sagas
          WHERE status IN ('RUNNING', 'COMPENSATING', 'INTERVENTION') GROUP BY status`,
      ),
    );
    const byState: Gauge<'state'> = new Gauge({
      name: 'sagas',
      help: 'Orchestrated checkouts by saga state, for the sagas not ended (RUNNING, COMPENSATING, INTERVENTION)',
      labelNames: ['state'],
      registers: [registry],
      collect: async () => {
        const rows = await open.get();
        if (!rows) return;
        for (const state of OPEN) byState.set({ state }, 0);
        for (const { status, count } of rows) byState.set({ state: status }, count);
      },
    });
  }
}
