import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { answerWithNext, sendWithNext } from '../../../../infra/database/one-write';
import { sqlStateOf } from '../../../../infra/database/sql-state';
import { currentTraceContext } from '../../../../infra/tracing/message.tracing';
import { FORWARD_STEPS } from '../../core/checkout-steps';
import { type CheckoutRow, checkoutRowFromJson, progressAssignments } from '../../database/checkouts.repository';
import type { CheckoutProgress, CheckoutStep } from '../../domain/checkout';
import type { Saga, SagaStatus } from '../domain/saga';
import { rowOfSaga, sagaFromRow, type SagaStepColumns } from '../saga-row';
import { type ListedSagaRow, type SagaRow, toSagaView, type SagaView } from './saga-view';

/** Another instance wrote the saga since this one read it: this write must not land. */
export class StaleSagaWriteError extends Error {
  constructor(
    readonly sagaId: string,
    readonly expectedVersion: number,
  ) {
    super(`Saga ${sagaId} changed since version ${expectedVersion} was read: the write is refused`);
    this.name = 'StaleSagaWriteError';
  }
}

/** What Postgres raises for a saga's write over another version than the one read (checkout.refuse_stale_saga_write). */
const STALE_SAGA_WRITE = 'SG409';

/**
 * A saga's write refused as stale: as `save` answers it, or as the COMMIT it rode with fails
 * (Postgres's error, which rolled the whole transaction back).
 */
export const isStaleSagaWrite = (error: unknown): boolean =>
  error instanceof StaleSagaWriteError || sqlStateOf(error) === STALE_SAGA_WRITE;

export interface StoredSaga {
  saga: Saga;
  version: number;
  nextDeadline: Date | null;
  /** The saga's checkout, read in the same snapshot: its progress is what this version of the saga wrote. */
  checkout: CheckoutRow;
}

/** Everything one move of a saga writes, in one statement. */
export interface SagaChange {
  /** The version that was read; none for a new saga. */
  readVersion?: number;
  /** Added to the database's clock, the one `claimDue` compares it with. */
  deadlineAfterMs?: number;
  /** What a participant answered about a step: kept on the step's row (its result, or its last error). */
  answer?: { step: CheckoutStep; result?: unknown; error?: string };
  log: SagaLogEntry;
  /** The checkout's new progress, if the move changed it. */
  progress?: CheckoutProgress;
}

export interface SagaLogEntry {
  input: string;
  from: SagaStatus;
  to: SagaStatus;
  step: string;
  command?: string;
  attempt?: number;
  detail?: unknown;
}

/** Sagas in `checkout.sagas` and `checkout.saga_steps`, written only if nobody wrote them since they were read. */
@Injectable()
export class SagasRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /**
   * The saga, locked until the transaction ends, then read as `load` reads it: whoever moves it
   * next waits for this transaction, and reads what it wrote. The lock goes in one write with the
   * read, which takes its snapshot once the lock is granted (READ COMMITTED).
   */
  async lockAndLoad(id: string): Promise<StoredSaga | undefined> {
    await sendWithNext(this.txHost.tx, `SELECT 1 FROM checkout.sagas WHERE id = $1 FOR UPDATE`, [id]);
    return this.load(id);
  }

  /** The saga, its steps and its checkout, in one statement (one snapshot). */
  async load(id: string): Promise<StoredSaga | undefined> {
    const [row] = await this.txHost.tx.query<
      Array<SagaRow & { steps: SagaStepColumns[]; checkout: Record<string, unknown> }>
    >(
      `SELECT s.*, row_to_json(c) AS checkout,
              (SELECT coalesce(json_agg(json_build_object(
                        'step', st.step, 'status', st.status, 'attempts', st.attempts,
                        'compensation_attempts', st.compensation_attempts, 'uncertain', st.uncertain)), '[]')
                 FROM checkout.saga_steps st WHERE st.saga_id = s.id) AS steps
         FROM checkout.sagas s JOIN checkout.checkouts c ON c.id = s.id
        WHERE s.id = $1`,
      [id],
    );
    if (!row) return undefined;
    return {
      saga: sagaFromRow(id, row, row.steps),
      version: row.version,
      nextDeadline: row.next_deadline,
      checkout: checkoutRowFromJson(row.checkout),
    };
  }

  /**
   * Writes one move of a saga in one statement: the saga (inserted, or updated over the version
   * that was read), its started steps with the answer, its log entry and its checkout's progress.
   * The statement rides with the transaction's next one, its COMMIT as a rule (no round trip of its
   * own); `written` is the checkout as written, if its progress was, once that is answered. If the
   * read version is no longer the stored one, Postgres raises (isStaleSagaWrite): the statement it
   * rode with fails, and the transaction keeps nothing; `written` rejects with StaleSagaWriteError.
   */
  async save(id: string, saga: Saga, change: SagaChange): Promise<{ written: Promise<CheckoutRow | undefined> }> {
    const columns = rowOfSaga(saga);
    const started = FORWARD_STEPS.map((step) => [step, saga.steps[step]] as const).filter(
      ([, record]) => record.status !== 'PENDING',
    );
    const { readVersion, answer, log, progress } = change;
    const sagaWrite =
      readVersion === undefined
        ? `INSERT INTO checkout.sagas (id, status, current_step, undoing, attempts, to_undo, outcome, reason, intervention,
                                       interrupted_while, next_deadline, backing_off, trace_context, generation, version)
           SELECT $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, clock_timestamp() + $12 * interval '1 millisecond', $13, $14,
                  $33, 1
            WHERE $2::int IS NULL
           RETURNING version`
        : `UPDATE checkout.sagas
              SET status = $3, current_step = $4, undoing = $5, attempts = $6, to_undo = $7, outcome = $8,
                  reason = $9, intervention = $10, interrupted_while = $11,
                  next_deadline = clock_timestamp() + $12 * interval '1 millisecond',
                  backing_off = $13, trace_context = $14, generation = $33, version = version + 1,
                  updated_at = clock_timestamp()
            WHERE id = $1 AND version = $2
            RETURNING version`;
    const stale = (error: unknown) => {
      throw isStaleSagaWrite(error) ? new StaleSagaWriteError(id, readVersion ?? 0) : error;
    };
    const { answer: saved } = await answerWithNext<{ checkout: Record<string, unknown> | null }>(
      this.txHost.tx,
      `WITH saved AS (${sagaWrite}),
       steps AS (
         INSERT INTO checkout.saga_steps (saga_id, step, status, attempts, compensation_attempts, uncertain, result, last_error)
         SELECT $1, u.step, u.status, u.attempts, u.compensation_attempts, u.uncertain,
                CASE WHEN u.step = $20 THEN $21::jsonb END, CASE WHEN u.step = $20 THEN $22 END
           FROM unnest($15::text[], $16::text[], $17::int[], $18::int[], $19::boolean[])
                AS u(step, status, attempts, compensation_attempts, uncertain)
          WHERE EXISTS (SELECT 1 FROM saved)
         ON CONFLICT (saga_id, step) DO UPDATE
           SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,
               compensation_attempts = EXCLUDED.compensation_attempts, uncertain = EXCLUDED.uncertain,
               result = coalesce(EXCLUDED.result, checkout.saga_steps.result),
               last_error = coalesce(EXCLUDED.last_error, checkout.saga_steps.last_error),
               updated_at = clock_timestamp()
           WHERE (checkout.saga_steps.status, checkout.saga_steps.attempts,
                  checkout.saga_steps.compensation_attempts, checkout.saga_steps.uncertain)
                 IS DISTINCT FROM (EXCLUDED.status, EXCLUDED.attempts, EXCLUDED.compensation_attempts, EXCLUDED.uncertain)
              OR EXCLUDED.result IS NOT NULL OR EXCLUDED.last_error IS NOT NULL),
       logged AS (
         INSERT INTO checkout.saga_log (saga_id, input, from_status, to_status, step, command, attempt, detail)
         SELECT $1, $23, $24, $25, $26, $27, $28, $29 WHERE EXISTS (SELECT 1 FROM saved)),
       progressed AS (
         UPDATE checkout.checkouts SET ${progressAssignments('$30::text', '$31', '$32')}
          WHERE id = $1 AND $30::text IS NOT NULL AND EXISTS (SELECT 1 FROM saved)
         RETURNING *)
       SELECT coalesce((SELECT version FROM saved), checkout.refuse_stale_saga_write($1, $2)) AS version,
              (SELECT row_to_json(p) FROM progressed p) AS checkout`,
      [
        id,
        readVersion ?? null,
        columns.status,
        columns.current_step,
        columns.undoing,
        columns.attempts,
        columns.to_undo,
        columns.outcome,
        columns.reason,
        columns.intervention,
        columns.interrupted_while,
        change.deadlineAfterMs ?? null,
        columns.backing_off,
        JSON.stringify(currentTraceContext()),
        started.map(([step]) => step),
        started.map(([, r]) => r.status),
        started.map(([, r]) => r.attempts),
        started.map(([, r]) => r.compensationAttempts),
        started.map(([, r]) => r.uncertain),
        answer?.step ?? null,
        answer?.result === undefined ? null : JSON.stringify(answer.result),
        answer?.error ?? null,
        log.input,
        log.from,
        log.to,
        log.step,
        log.command ?? null,
        log.attempt ?? null,
        log.detail === undefined ? null : JSON.stringify(log.detail),
        progress?.status ?? null,
        progress?.step ?? null,
        progress?.failureReason ?? null,
        columns.generation,
      ],
    ).catch(stale);
    const written = saved.then(([row]) => (row.checkout ? checkoutRowFromJson(row.checkout) : undefined), stale);
    return { written };
  }

  /** A saga whose deadline has passed (but none of `except`), locked, and skipped by the other sweepers. */
  async claimDue(except: string[] = []): Promise<string | undefined> {
    const [row] = await this.txHost.tx.query<Array<{ id: string }>>(
      `SELECT id FROM checkout.sagas
        WHERE next_deadline <= clock_timestamp() AND NOT (id = ANY($1::uuid[]))
        ORDER BY next_deadline
        LIMIT 1
        FOR UPDATE SKIP LOCKED`,
      [except],
    );
    return row?.id;
  }

  /** Where the trace of the saga's checkout was when the saga last moved (see tracing). */
  async traceContextOf(id: string): Promise<Record<string, string>> {
    const [row] = await this.txHost.tx.query<Array<{ trace_context: Record<string, string> }>>(
      `SELECT trace_context FROM checkout.sagas WHERE id = $1`,
      [id],
    );
    return row?.trace_context ?? {};
  }

  /** Sagas in a state, most recently changed first, with the steps they have started. */
  async list(state: SagaStatus | undefined, limit: number): Promise<SagaView[]> {
    const rows = await this.txHost.tx.query<ListedSagaRow[]>(
      `SELECT s.*,
              coalesce(json_agg(json_build_object(
                'step', st.step, 'status', st.status, 'attempts', st.attempts,
                'compensation_attempts', st.compensation_attempts, 'uncertain', st.uncertain,
                'result', st.result, 'last_error', st.last_error,
                'started_at', st.started_at, 'updated_at', st.updated_at) ORDER BY st.started_at)
                FILTER (WHERE st.step IS NOT NULL), '[]') AS steps
         FROM checkout.sagas s LEFT JOIN checkout.saga_steps st ON st.saga_id = s.id
        WHERE $1::text IS NULL OR s.status = $1
        GROUP BY s.id
        ORDER BY s.updated_at DESC
        LIMIT $2`,
      [state ?? null, limit],
    );
    return rows.map(toSagaView);
  }

  /** The saga's log, oldest first. */
  history(id: string) {
    return this.txHost.tx.query<Array<SagaLogEntry & { at: Date }>>(
      `SELECT at, input, from_status AS "from", to_status AS "to", step, command, attempt, detail
         FROM checkout.saga_log WHERE saga_id = $1 ORDER BY id`,
      [id],
    );
  }
}
