import type { OutboxConfig } from './outbox.config';

interface Queryable {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

/**
 * Bounds the current transaction: no statement of it waits for a lock longer than
 * OUTBOX_LOCK_TIMEOUT_MS, or runs longer than OUTBOX_STATEMENT_TIMEOUT_MS. A transport
 * transaction stuck behind another session would otherwise hold its jobs (and their locks in
 * Redis) forever.
 */
export async function boundTransaction(tx: Queryable, config: OutboxConfig): Promise<void> {
  await tx.query(`SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true)`, [
    `${config.lockTimeoutMs}ms`,
    `${config.statementTimeoutMs}ms`,
  ]);
}

/** Postgres gave up on a statement: a lock timeout (55P03) or a statement timeout (57014). */
export function isTimeout(error: unknown): boolean {
  const code =
    (error as { code?: unknown } | null)?.code ??
    (error as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return code === '55P03' || code === '57014';
}
