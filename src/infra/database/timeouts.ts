import { sqlStateOf } from './sql-state';

/**
 * Postgres gave up on a statement: a lock timeout (55P03) or a statement timeout (57014). Every
 * session of the app is bounded from its start (DATABASE_LOCK_TIMEOUT_MS,
 * DATABASE_STATEMENT_TIMEOUT_MS; see dataSourceOptions): a transport transaction stuck behind
 * another session fails rather than hold its jobs (and their locks in Redis) forever.
 */
export function isTimeout(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code === '55P03' || code === '57014';
}
