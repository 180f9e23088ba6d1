import type { Sql, Viewer } from './exercise';

/**
 * A learner's words: "Only an active grant is final, so the buyer may watch when they hold an
 * active grant. A buyer who has paid is a buyer who has paid."
 *
 * What it gets wrong: it asks whether the buyer paid for something, not for this plan. A buyer who
 * owns another plan is let into this one while its checkout runs, and after its capture is
 * declined too: the right status, the wrong rows.
 */
export async function mayWatch(sql: Sql, { userId }: Viewer): Promise<boolean> {
  const active = await sql.query(`SELECT 1 FROM content.entitlements WHERE user_id = $1 AND status = 'active'`, [
    userId,
  ]);
  return active.length > 0;
}
