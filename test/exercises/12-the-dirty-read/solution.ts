import type { Sql, Viewer } from './exercise';

/**
 * The reader honours the semantic lock: a grant made while the money is only held is
 * `provisional` (the checkout may still be undone), and only the capture makes it `active`. Only
 * an active grant lets the buyer watch; a provisional one is "being confirmed", not access.
 *
 * It asks again every time: the answer changes when the lock is lifted (or the grant withdrawn),
 * so no answer taken while a grant was provisional may be kept as final.
 *
 * The product's own reader does the same: `accessFrom` and `mayWatch` in
 * src/modules/content/domain/entitlement.ts, behind GET /users/:id/access.
 */
export async function mayWatch(sql: Sql, { userId, planId }: Viewer): Promise<boolean> {
  const active = await sql.query(
    `SELECT 1 FROM content.entitlements WHERE user_id = $1 AND plan_id = $2 AND status = 'active'`,
    [userId, planId],
  );
  return active.length > 0;
}
