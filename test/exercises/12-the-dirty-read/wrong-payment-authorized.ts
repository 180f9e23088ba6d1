import type { Sql, Viewer } from './exercise';

/**
 * A wrong answer people write: "the money is there, so the buyer has paid". An authorization only
 * holds the money on the card; until it is captured the checkout can still fail (the capture is
 * declined) and be undone. It also reads another module's tables (billing's), which the modules
 * of this project never do: access is content's to say.
 */
export async function mayWatch(sql: Sql, { userId, planId }: Viewer): Promise<boolean> {
  const paid = await sql.query(
    `SELECT 1 FROM billing.payments
      WHERE user_id = $1 AND plan_id = $2 AND status IN ('authorized', 'captured')`,
    [userId, planId],
  );
  return paid.length > 0;
}
