import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { sendWithNext } from '../../../infra/database/app-pg-client';
import type { CheckoutMode } from '../checkout.config';
import type { CheckoutProgress, CheckoutStatus, CheckoutStep } from '../domain/checkout';

export interface CheckoutRow {
  id: string;
  user_id: string;
  plan_id: string;
  payment_method: string;
  mode: CheckoutMode;
  status: CheckoutStatus;
  step: CheckoutStep;
  failure_reason: string | null;
  correlation_id: string;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  refunded_at: Date | null;
}

/** A checkout row read as JSON (`row_to_json`) in a statement about something else: its timestamps are strings. */
export const checkoutRowFromJson = (json: Record<string, unknown>): CheckoutRow => {
  const at = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
  return {
    ...(json as unknown as CheckoutRow),
    created_at: at(json.created_at)!,
    updated_at: at(json.updated_at)!,
    completed_at: at(json.completed_at),
    refunded_at: at(json.refunded_at),
  };
};

/**
 * The assignments that write a checkout's progress, from the statement's parameters `$status`,
 * `$step` and `$reason`: an outcome also sets when it was reached.
 */
export const progressAssignments = (status: string, step: string, reason: string): string =>
  `status = ${status}, step = ${step}, failure_reason = ${reason}, updated_at = clock_timestamp(),
   completed_at = CASE WHEN ${status} IN ('COMPLETED', 'REJECTED', 'FAILED') THEN clock_timestamp() END`;

export interface CheckoutView {
  id: string;
  userId: string;
  planId: string;
  mode: CheckoutMode;
  status: CheckoutStatus;
  step: CheckoutStep;
  failureReason: string | null;
  correlationId: string;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  refundedAt: string | null;
}

export const toCheckoutView = (row: CheckoutRow): CheckoutView => ({
  id: row.id,
  userId: row.user_id,
  planId: row.plan_id,
  mode: row.mode,
  status: row.status,
  step: row.step,
  failureReason: row.failure_reason,
  correlationId: row.correlation_id,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  completedAt: row.completed_at?.toISOString() ?? null,
  refundedAt: row.refunded_at?.toISOString() ?? null,
});

export interface ListFilter {
  /** Only this buyer's. */
  userId?: string;
  status?: CheckoutStatus;
  mode?: CheckoutMode;
  /** Only PENDING checkouts created at least this long ago, by the database's clock. */
  stuckAfterMs?: number;
  after?: { createdAt: Date; id: string };
  limit: number;
}

@Injectable()
export class CheckoutsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async insert(
    checkout: Pick<CheckoutRow, 'id' | 'user_id' | 'plan_id' | 'payment_method' | 'mode' | 'step' | 'correlation_id'>,
  ): Promise<CheckoutRow> {
    const [row] = await this.txHost.tx.query<CheckoutRow[]>(
      `INSERT INTO checkout.checkouts (id, user_id, plan_id, payment_method, mode, step, correlation_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING *`,
      [
        checkout.id,
        checkout.user_id,
        checkout.plan_id,
        checkout.payment_method,
        checkout.mode,
        checkout.step,
        checkout.correlation_id,
      ],
    );
    return row;
  }

  async find(id: string): Promise<CheckoutRow | undefined> {
    const [row] = await this.txHost.tx.query<CheckoutRow[]>(`SELECT * FROM checkout.checkouts WHERE id = $1`, [id]);
    return row;
  }

  /** The checkout, locked until the transaction ends: its progress is read, then written. */
  async lock(id: string): Promise<CheckoutRow | undefined> {
    const [row] = await this.txHost.tx.query<CheckoutRow[]>(
      `SELECT * FROM checkout.checkouts WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return row;
  }

  /**
   * Writes the progress of a checkout locked by this transaction. Nothing waits for its answer, so
   * it goes with the transaction's next statement (a later read of the row included) or its COMMIT.
   */
  async saveProgress(id: string, progress: CheckoutProgress): Promise<void> {
    await sendWithNext(
      this.txHost.tx,
      `UPDATE checkout.checkouts SET ${progressAssignments('$2', '$3', '$4')} WHERE id = $1`,
      [id, progress.status, progress.step, progress.failureReason],
    );
  }

  /** Records the first refund of a checkout; false when there is no such checkout. */
  async markRefunded(id: string): Promise<boolean> {
    const [, affected] = await this.txHost.tx.query<[unknown[], number]>(
      `UPDATE checkout.checkouts SET refunded_at = coalesce(refunded_at, clock_timestamp()) WHERE id = $1`,
      [id],
    );
    return affected > 0;
  }

  /** Choreographed checkouts still PENDING with no progress for `stalledAfterMs`, by the database's clock. */
  async stalledChoreographies(
    stalledAfterMs: number,
    limit: number,
  ): Promise<Array<CheckoutRow & { stalled_seconds: number }>> {
    return this.txHost.tx.query(
      `SELECT *, round(extract(epoch FROM clock_timestamp() - updated_at))::int AS stalled_seconds
         FROM checkout.checkouts
        WHERE status = 'PENDING' AND mode = 'choreography'
          AND updated_at < clock_timestamp() - $1 * interval '1 millisecond'
        ORDER BY updated_at
        LIMIT $2`,
      [stalledAfterMs, limit],
    );
  }

  /**
   * Newest first; the cursor is the last row of the previous page. The statement names only the
   * filters given, each as a plain condition: a buyer's listing then reads the index on
   * (user_id, created_at, id) from its cursor, for its page, even as a prepared statement's generic
   * plan (a `$n IS NULL OR user_id = $n` would be a filter over the whole table's newest first).
   */
  list(filter: ListFilter): Promise<CheckoutRow[]> {
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    const conditions: string[] = [];
    if (filter.userId !== undefined) conditions.push(`user_id = ${param(filter.userId)}`);
    if (filter.status !== undefined) conditions.push(`status = ${param(filter.status)}`);
    if (filter.mode !== undefined) conditions.push(`mode = ${param(filter.mode)}`);
    if (filter.stuckAfterMs !== undefined) {
      conditions.push(
        `status = 'PENDING' AND created_at < clock_timestamp() - ${param(filter.stuckAfterMs)} * interval '1 millisecond'`,
      );
    }
    if (filter.after !== undefined) {
      conditions.push(
        `(created_at, id) < (${param(filter.after.createdAt)}::timestamptz, ${param(filter.after.id)}::uuid)`,
      );
    }
    return this.txHost.tx.query<CheckoutRow[]>(
      `SELECT * FROM checkout.checkouts
        ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
        ORDER BY created_at DESC, id DESC
        LIMIT ${param(filter.limit)}`,
      params,
    );
  }
}
