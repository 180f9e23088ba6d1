import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { answerWithNext, sendWithNext } from '../../../infra/database/one-write';
import type { CheckoutMode } from '../checkout.config';
import type { CheckoutStatus, CheckoutStep, ProgressFact, StepOrder } from '../domain/checkout';

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

/** A checkout as its start knows it, before Postgres has stamped its times. */
export type NewCheckout = Omit<CheckoutRow, 'created_at' | 'updated_at' | 'completed_at' | 'refunded_at'>;

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

/**
 * `advance` (domain/checkout.ts) in SQL, over the row's status, step and failure_reason and the
 * fact's kind ($2), step ($3) and reason ($4), with the step order as $5: the row as the fact
 * leaves it. A step ranks by its place in the order (one not in it, below all); the statement's
 * WHERE leaves a final status alone. The TypeScript rule is the reference:
 * test/checkout/progress-rule.int-spec.ts holds this against it for every fact and every state.
 */
const AHEAD = `coalesce(array_position($5::text[], $3::text), 0) > coalesce(array_position($5::text[], step), 0)`;
const NEXT_STATUS = `CASE $2::text
    WHEN 'completed' THEN 'COMPLETED'
    WHEN 'rejected' THEN 'REJECTED'
    WHEN 'failed' THEN 'FAILED'
    WHEN 'intervention' THEN 'INTERVENTION'
    WHEN 'resumed' THEN CASE status WHEN 'INTERVENTION' THEN 'PENDING' ELSE status END
    ELSE status END`;
const NEXT_STEP = `CASE WHEN $2::text IN ('reached', 'compensating') AND ${AHEAD} THEN $3::text ELSE step END`;
const NEXT_REASON = `CASE $2::text
    WHEN 'compensating' THEN CASE WHEN ${AHEAD} THEN coalesce(failure_reason, $4::text) ELSE failure_reason END
    WHEN 'completed' THEN NULL
    WHEN 'rejected' THEN $4::text
    WHEN 'failed' THEN coalesce(failure_reason, $4::text)
    WHEN 'intervention' THEN $4::text
    WHEN 'resumed' THEN CASE status WHEN 'INTERVENTION' THEN NULL ELSE failure_reason END
    ELSE failure_reason END`;

/**
 * A fact's move of the read model, in one statement: the row is updated only if the fact changes
 * it. Under READ COMMITTED, an UPDATE that waited for another transaction's write of the row
 * evaluates its WHERE and its SET again on the row as that one committed it, so two facts about
 * one checkout apply one after the other, as under a lock taken before reading. `known` tells a
 * checkout the fact changed nothing from one that does not exist.
 */
const MOVE_PROGRESS = `WITH moved AS (
    UPDATE checkout.checkouts SET ${progressAssignments(NEXT_STATUS, NEXT_STEP, NEXT_REASON)}
     WHERE id = $1
       AND status NOT IN ('COMPLETED', 'REJECTED', 'FAILED')
       AND (status, step, failure_reason) IS DISTINCT FROM (${NEXT_STATUS}, ${NEXT_STEP}, ${NEXT_REASON})
    RETURNING mode, status, created_at)
  SELECT EXISTS (SELECT 1 FROM checkout.checkouts WHERE id = $1) AS known, moved.*
    FROM (VALUES (1)) AS one LEFT JOIN moved ON true`;

/** What a fact did to a checkout: nothing when there is no such checkout, or when it changed nothing. */
export interface ProgressMove {
  known: boolean;
  /** The checkout as the fact left it, if it changed it. */
  moved?: Pick<CheckoutRow, 'mode' | 'status' | 'created_at'>;
}

type MoveRow = { known: boolean } & Partial<CheckoutRow>;

const moveParams = (id: string, fact: ProgressFact, order: StepOrder): unknown[] => [
  id,
  fact.kind,
  'step' in fact ? fact.step : null,
  'reason' in fact ? fact.reason : null,
  order,
];

const moveOf = ({ known, mode, status, created_at }: MoveRow): ProgressMove => ({
  known,
  moved: status === null || status === undefined ? undefined : { mode: mode!, status, created_at: created_at! },
});

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

  /**
   * Writes a new checkout, PENDING at its first step, with the transaction's next statement (its
   * COMMIT, as a rule): nobody reads it back before then.
   */
  async insert(
    checkout: Pick<CheckoutRow, 'id' | 'user_id' | 'plan_id' | 'payment_method' | 'mode' | 'step' | 'correlation_id'>,
  ): Promise<NewCheckout> {
    await sendWithNext(
      this.txHost.tx,
      `INSERT INTO checkout.checkouts (id, user_id, plan_id, payment_method, mode, step, correlation_id, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'PENDING')`,
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
    return { ...checkout, status: 'PENDING', failure_reason: null };
  }

  async find(id: string): Promise<CheckoutRow | undefined> {
    const [row] = await this.txHost.tx.query<CheckoutRow[]>(`SELECT * FROM checkout.checkouts WHERE id = $1`, [id]);
    return row;
  }

  /** The checkout, locked until the transaction ends: it is read, then acted on (an operator resuming it). */
  async lock(id: string): Promise<CheckoutRow | undefined> {
    const [row] = await this.txHost.tx.query<CheckoutRow[]>(
      `SELECT * FROM checkout.checkouts WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return row;
  }

  /** Writes what `fact` makes of the checkout's progress, by the order of steps `order`, in one statement. */
  async moveProgress(id: string, fact: ProgressFact, order: StepOrder): Promise<ProgressMove> {
    const [row] = await this.txHost.tx.query<MoveRow[]>(MOVE_PROGRESS, moveParams(id, fact, order));
    return moveOf(row);
  }

  /**
   * As moveProgress, the statement riding in one write with the transaction's next one (its COMMIT,
   * as a rule): the move is known once that write is answered, and its failure fails that one.
   */
  async moveProgressWithNext(
    id: string,
    fact: ProgressFact,
    order: StepOrder,
  ): Promise<{ move: Promise<ProgressMove> }> {
    const { answer } = await answerWithNext<MoveRow>(this.txHost.tx, MOVE_PROGRESS, moveParams(id, fact, order));
    return { move: answer.then(([row]) => moveOf(row)) };
  }

  /**
   * Sets a PENDING checkout's status, step and reason as given, riding with the transaction's next
   * statement (its COMMIT): for an engine that decides them itself (the bench's peers). A final
   * status stays final, whatever runs again.
   */
  async setProgressWithNext(id: string, status: string, step: string, reason: string | null): Promise<void> {
    await sendWithNext(
      this.txHost.tx,
      `UPDATE checkout.checkouts SET ${progressAssignments('$2', '$3', '$4')} WHERE id = $1 AND status = 'PENDING'`,
      [id, status, step, reason],
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

  /**
   * Choreographed checkouts still PENDING with no progress for `stalledAfterMs`, by the database's
   * clock, oldest first; those at one of the `last` steps after the others, so that many waiting
   * there (an outage the step waits out) do not fill the page.
   */
  async stalledChoreographies(
    stalledAfterMs: number,
    limit: number,
    last: readonly string[] = [],
  ): Promise<Array<CheckoutRow & { stalled_seconds: number }>> {
    return this.txHost.tx.query(
      `SELECT *, round(extract(epoch FROM clock_timestamp() - updated_at))::int AS stalled_seconds
         FROM checkout.checkouts
        WHERE status = 'PENDING' AND mode = 'choreography'
          AND updated_at < clock_timestamp() - $1 * interval '1 millisecond'
        ORDER BY step = ANY($3::text[]), updated_at
        LIMIT $2`,
      [stalledAfterMs, limit, last],
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
