import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** One thing that happened to the messages of a business process, as the transport saw it. */
export interface TransportEntry {
  at: string;
  /** `event` or `command` (written), `handled`, `attempt-failed`, `duplicate`, `dead-lettered`. */
  kind: string;
  type: string | null;
  /** The module that wrote the message, or that consumed it. */
  module: string | null;
  consumer: string | null;
  attempt: number | null;
  eventId: string | null;
  causationId: string | null;
  detail: unknown;
}

const ATTEMPT_KINDS = { failed: 'attempt-failed', duplicate: 'duplicate', dead: 'dead-lettered' };

/**
 * Everything the transport recorded under one correlation id, in time order; with an aggregate,
 * only its messages and their deliveries (a caller may reuse a correlation id across requests).
 */
@Injectable()
export class TransportHistory {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Of `correlationIds`, those with a delivery to one of `consumers` that failed within the last
   * `withinMs`: processes whose consumer is still retrying, between two of its attempts.
   */
  async retrying(correlationIds: string[], consumers: readonly string[], withinMs: number): Promise<Set<string>> {
    if (correlationIds.length === 0) return new Set();
    const rows = await this.dataSource.query<Array<{ correlation_id: string }>>(
      `SELECT DISTINCT correlation_id FROM outbox.delivery_attempts
        WHERE correlation_id = ANY($1::text[]) AND consumer = ANY($2::text[]) AND outcome = 'failed'
          AND at > clock_timestamp() - $3 * interval '1 millisecond'`,
      [correlationIds, consumers, withinMs],
    );
    return new Set(rows.map((row) => row.correlation_id));
  }

  async forCorrelation(correlationId: string, aggregateId?: string): Promise<TransportEntry[]> {
    const rows = await this.dataSource.query<
      Array<Omit<TransportEntry, 'at'> & { at: Date; kind: string; attempt: number | null }>
    >(
      `WITH messages AS (
         SELECT * FROM outbox.messages
          WHERE correlation_id = $1 AND ($2::text IS NULL OR aggregate_id = $2))
       SELECT created_at AS at, kind, type, split_part(type, '.', 1) AS module, NULL AS consumer,
              NULL::int AS attempt, id AS "eventId", causation_id AS "causationId", payload AS detail
         FROM messages
       UNION ALL
       SELECT i.handled_at, 'handled', m.type, split_part(i.consumer, '.', 1), i.consumer,
              i.attempt, i.message_id, NULL, NULL
         FROM outbox.inbox i JOIN messages m ON m.id = i.message_id
        WHERE i.correlation_id = $1
       UNION ALL
       SELECT a.at, a.outcome, m.type, split_part(a.consumer, '.', 1), a.consumer,
              a.attempt, a.message_id, NULL,
              CASE WHEN a.error IS NULL THEN NULL ELSE jsonb_build_object('error', a.error) END
         FROM outbox.delivery_attempts a JOIN messages m ON m.id = a.message_id
        WHERE a.correlation_id = $1
       ORDER BY 1`,
      [correlationId, aggregateId ?? null],
    );
    return rows.map((row) => ({
      ...row,
      at: row.at.toISOString(),
      kind: ATTEMPT_KINDS[row.kind as keyof typeof ATTEMPT_KINDS] ?? row.kind,
    }));
  }
}
