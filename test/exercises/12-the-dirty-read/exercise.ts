/**
 * Exercise 12's small interface: a reader of access. The spec gives it a way to run SQL on the
 * app's database (read it; do not write) and a buyer, and asks it one question, again and again,
 * while that buyer's checkout runs: may they watch the plan right now?
 *
 * The rows it answers from are content's, one per checkout (`content.entitlements`):
 *
 * | column       | what it holds                                                              |
 * | ------------ | -------------------------------------------------------------------------- |
 * | checkout_id  | the checkout that granted it (one row per checkout)                        |
 * | user_id      | the buyer (null on a tombstone: a revoke that came before any grant)       |
 * | plan_id      | the plan (null on a tombstone)                                             |
 * | status       | `provisional`, `active` or `revoked`                                       |
 * | tombstone    | true when the row is a revoke that came first                              |
 * | granted_at   | when the grant was made                                                    |
 * | activated_at | when it became active (the checkout's money was captured)                  |
 * | revoked_at   | when it was withdrawn                                                      |
 */

/** SQL on the app's database, as `pg` answers it: the rows. */
export interface Sql {
  query<Row extends object = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
}

/** Who asks, about what. */
export interface Viewer {
  userId: string;
  planId: string;
}

/** What your answer exports (starter.ts, solution.ts, wrong-*.ts). */
export interface AccessReader {
  /** May this buyer watch this plan right now? */
  mayWatch(sql: Sql, viewer: Viewer): Promise<boolean>;
}
