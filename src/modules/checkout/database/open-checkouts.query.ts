import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The open checkouts of one mode and status, counted. */
export interface OpenCheckoutsCount {
  mode: string;
  status: string;
  count: number;
  /** Those still PENDING past the stuck bound. */
  stuck: number;
  /** Since when the oldest of them began, in seconds. */
  oldest_age: number;
}

/**
 * The open checkouts (PENDING, INTERVENTION) by mode and status, read outside any transaction
 * through the status index: it costs the same however many finished checkouts the table holds
 * (ADR 0078).
 */
@Injectable()
export class OpenCheckoutsQuery {
  constructor(private readonly dataSource: DataSource) {}

  byModeAndStatus(stuckAfterSeconds: number): Promise<OpenCheckoutsCount[]> {
    return this.dataSource.query<OpenCheckoutsCount[]>(
      `SELECT mode, status, count(*)::int AS count,
              (count(*) FILTER (WHERE status = 'PENDING'
                                  AND created_at < clock_timestamp() - make_interval(secs => $1)))::int AS stuck,
              extract(epoch FROM clock_timestamp() - min(created_at))::float8 AS oldest_age
         FROM checkout.checkouts
        WHERE status IN ('PENDING', 'INTERVENTION')
        GROUP BY mode, status`,
      [stuckAfterSeconds],
    );
  }
}
