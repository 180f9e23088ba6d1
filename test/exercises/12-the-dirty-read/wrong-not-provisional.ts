import type { Sql, Viewer } from './exercise';

/**
 * A learner's words: "The semantic lock is the `provisional` status: while a grant is
 * provisional, the answer is no. Any other grant of the buyer's for the plan means yes."
 *
 * What it gets wrong: a revoked grant is not provisional either. It honours the lock while the
 * checkout runs, and then lets the buyer in once the declined capture has taken the access back:
 * "not provisional" is not "sold".
 */
export async function mayWatch(sql: Sql, { userId, planId }: Viewer): Promise<boolean> {
  const grants = await sql.query(
    `SELECT 1 FROM content.entitlements WHERE user_id = $1 AND plan_id = $2 AND status <> 'provisional'`,
    [userId, planId],
  );
  return grants.length > 0;
}
