import type { Sql, Viewer } from './exercise';

/**
 * A learner's words: "The saga knows best whether a sale is undone: a grant whose checkout has
 * not FAILED stands. So the reader joins the checkout and lets the buyer in unless it failed."
 *
 * What it gets wrong: a checkout that has not failed yet is one that may still fail. While it is
 * PENDING, the capture can be declined and the grant undone: reading it as "not failed" is the
 * dirty read again, through another module's table (which the modules of this project never read).
 */
export async function mayWatch(sql: Sql, { userId, planId }: Viewer): Promise<boolean> {
  const grants = await sql.query(
    `SELECT 1 FROM content.entitlements e JOIN checkout.checkouts c ON c.id = e.checkout_id
      WHERE e.user_id = $1 AND e.plan_id = $2 AND e.revoked_at IS NULL AND c.status <> 'FAILED'`,
    [userId, planId],
  );
  return grants.length > 0;
}
