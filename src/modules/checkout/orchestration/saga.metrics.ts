import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsRegistry } from '../../../infra/metrics/metrics.registry';
import { OpenSagasQuery } from './database/open-sagas.query';

/** A saga's states until it ends (COMPLETED or COMPENSATED): the ones `sagas{state}` counts. */
const OPEN = ['RUNNING', 'COMPENSATING', 'INTERVENTION'] as const;

/**
 * Open sagas by state, and since when the oldest of each state began, read through the status
 * index: the figures cost the same however many ended sagas the table holds (ADR 0078).
 */
@Injectable()
export class SagaMetrics {
  constructor(registry: MetricsRegistry, openSagas: OpenSagasQuery) {
    const open = registry.reading('sagas', () => openSagas.byStatus());
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
    // A saga RUNNING or COMPENSATING for long has stopped moving: its deadlines should have moved it.
    const oldest: Gauge<'state'> = new Gauge({
      name: 'saga_oldest_age_seconds',
      help: 'Since the oldest saga in each state not ended began (RUNNING, COMPENSATING, INTERVENTION; 0 when none)',
      labelNames: ['state'],
      registers: [registry],
      collect: async () => {
        const rows = await open.get();
        if (!rows) return;
        for (const state of OPEN) oldest.set({ state }, 0);
        for (const { status, oldest_age } of rows) oldest.set({ state: status }, oldest_age);
      },
    });
  }
}
