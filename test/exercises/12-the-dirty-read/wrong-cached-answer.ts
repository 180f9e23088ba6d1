import type { Sql, Viewer } from './exercise';

/** Answers remembered for a minute: access "rarely changes", and the question is asked a lot. */
const remembered = new Map<string, { answer: boolean; until: number }>();
const FOR_MS = 60_000;

/**
 * A wrong answer people write: the right query, behind a cache. An answer taken while the grant
 * was provisional is kept as if it were final, so the buyer who has just paid (and been welcomed
 * by email) is still told no for a minute. A provisional state means "ask again": caching it
 * undoes the lock from the other side.
 */
export async function mayWatch(sql: Sql, { userId, planId }: Viewer): Promise<boolean> {
  const key = `${userId}:${planId}`;
  const hit = remembered.get(key);
  if (hit && hit.until > Date.now()) return hit.answer;
  const active = await sql.query(
    `SELECT 1 FROM content.entitlements WHERE user_id = $1 AND plan_id = $2 AND status = 'active'`,
    [userId, planId],
  );
  remembered.set(key, { answer: active.length > 0, until: Date.now() + FOR_MS });
  return active.length > 0;
}
