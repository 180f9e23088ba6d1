import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { MetricsRegistry } from '../../metrics/metrics.registry';

/** What the gauges of a slot show: its row of pg_replication_slots, and how long it has lagged. */
interface SlotFigures {
  retained: number;
  unconfirmed: number;
  active: boolean;
  ageSeconds: number;
}

/**
 * The gauges of the logical relay's slot, registered in any mode: a slot left behind by a switch
 * back to polling, or whose reader is gone, keeps WAL until the disk is full. One row of
 * pg_replication_slots (in shared memory), read at most once every METRICS_READ_INTERVAL_MS:
 * constant cost. No series while there is no slot.
 */
export function registerSlotGauges(registry: MetricsRegistry, dataSource: DataSource, slotName: string): void {
  const registers = [registry];
  const walClock = new WalClock();
  const slot = registry.reading('outbox_slot', async () => {
    const [row] = await dataSource.query<
      Array<{ current: number; retained: number; unconfirmed: number; active: boolean }>
    >(
      `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::float8 AS current,
              (pg_current_wal_lsn() - restart_lsn)::float8 AS retained,
              (pg_current_wal_lsn() - confirmed_flush_lsn)::float8 AS unconfirmed,
              active
         FROM pg_replication_slots WHERE slot_name = $1`,
      [slotName],
    );
    if (!row) return { slot: null };
    const ageSeconds = walClock.ageOf(row.current, Math.max(0, row.unconfirmed), Date.now());
    return { slot: { ...row, ageSeconds } };
  });
  const slotGauge = (name: string, help: string, value: (figures: SlotFigures) => number): Gauge<'slot'> => {
    const gauge: Gauge<'slot'> = new Gauge({
      name,
      help,
      labelNames: ['slot'],
      registers,
      collect: async () => {
        const figures = await slot.get();
        if (!figures) return;
        gauge.reset();
        if (figures.slot) gauge.set({ slot: slotName }, value(figures.slot));
      },
    });
    return gauge;
  };
  slotGauge(
    'outbox_slot_retained_wal_bytes',
    "WAL the server keeps for the logical relay's slot (from its restart position): what an unread slot fills the disk with",
    (figures) => Math.max(0, figures.retained),
  );
  slotGauge(
    'outbox_slot_unconfirmed_wal_bytes',
    "WAL written since the position the logical relay's slot last confirmed (pg_current_wal_lsn() - confirmed_flush_lsn)",
    (figures) => Math.max(0, figures.unconfirmed),
  );
  slotGauge(
    'outbox_slot_unconfirmed_age_seconds',
    "Since when the WAL has been past the slot's confirmed position, as this process saw it (0 when confirmed up to the end)",
    (figures) => figures.ageSeconds,
  );
  slotGauge(
    'outbox_slot_active',
    "Whether a reader is connected to the logical relay's slot (1) or not (0)",
    (figures) => (figures.active ? 1 : 0),
  );
}

/**
 * When the WAL passed which position, as this process saw it at its readings: the age of a slot's
 * oldest unconfirmed change is the time since the WAL was first seen past the slot's confirmed
 * position. Postgres keeps no such time (pg_replication_slots has positions only); a process
 * started while a slot already lags counts from its own first reading. Samples at or before the
 * confirmed position are dropped; a long lag keeps every other one of the rest.
 */
export class WalClock {
  private samples: Array<{ lsn: number; at: number }> = [];

  ageOf(current: number, unconfirmed: number, now: number): number {
    const confirmed = current - unconfirmed;
    this.samples = this.samples.filter((sample) => sample.lsn > confirmed);
    const last = this.samples[this.samples.length - 1];
    if (unconfirmed > 0 && (!last || last.lsn < current)) this.samples.push({ lsn: current, at: now });
    if (this.samples.length > 4_096) this.samples = this.samples.filter((_, index) => index % 2 === 0);
    return unconfirmed > 0 && this.samples.length > 0 ? (now - this.samples[0].at) / 1_000 : 0;
  }
}
