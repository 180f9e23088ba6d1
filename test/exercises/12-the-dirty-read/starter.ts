import type { Sql, Viewer } from './exercise';

/**
 * "May the buyer watch?", answered from content's access rows (see exercise.ts for the columns).
 *
 * This is the reader most of us would write: a grant that was not withdrawn means yes. Run
 * `npm run exercise -- 12` and watch it let a buyer in during a checkout that never sold.
 */
export async function mayWatch(sql: Sql, { userId, planId }: Viewer): Promise<boolean> {
  // TODO: not every grant is the buyer's for good yet. Which rows may a checkout still take back,
  // and which may it not? Answer yes only from the rows that can no longer be undone.
  const grants = await sql.query(
    `SELECT 1 FROM content.entitlements WHERE user_id = $1 AND plan_id = $2 AND revoked_at IS NULL`,
    [userId, planId],
  );
  return grants.length > 0;
}
