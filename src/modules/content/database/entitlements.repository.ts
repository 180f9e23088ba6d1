import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
import { lockUntilCommit, sendWithNext } from '../../../infra/database/one-write';
import type { EntitlementStatus, License } from '../domain/entitlement';

export interface EntitlementRow {
  id: string;
  checkout_id: string;
  user_id: string | null;
  plan_id: string | null;
  status: EntitlementStatus;
  tombstone: boolean;
}

export type NewEntitlement = Omit<EntitlementRow, 'id'> & { idempotency_key: string };

@Injectable()
export class EntitlementsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** The checkout's entitlement, if any, under a lock on that checkout until the transaction ends. */
  async lockByCheckout(checkoutId: string): Promise<EntitlementRow | undefined> {
    const tx = this.txHost.tx;
    await lockUntilCommit(tx, `content.entitlements:${checkoutId}`);
    const [row] = await tx.query<EntitlementRow[]>(`SELECT * FROM content.entitlements WHERE checkout_id = $1`, [
      checkoutId,
    ]);
    return row;
  }

  /**
   * Writes a new entitlement. Nothing of the row is Postgres's to say back, so the statement goes
   * with the transaction's next one (its COMMIT, as a rule), and its failure fails that one.
   */
  async insert({ idempotency_key, ...entitlement }: NewEntitlement): Promise<EntitlementRow> {
    const row: EntitlementRow = { ...entitlement, id: randomUUID() };
    await sendWithNext(
      this.txHost.tx,
      `INSERT INTO content.entitlements
         (id, checkout_id, user_id, plan_id, status, tombstone, idempotency_key, granted_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7,
               CASE WHEN $5 <> 'revoked' THEN now() END, CASE WHEN $5 = 'revoked' THEN now() END)`,
      [
        row.id,
        entitlement.checkout_id,
        entitlement.user_id,
        entitlement.plan_id,
        entitlement.status,
        entitlement.tombstone,
        idempotency_key,
      ],
    );
    return row;
  }

  /** Revokes an entitlement, with the transaction's next statement. */
  async revoke(id: string): Promise<void> {
    await sendWithNext(
      this.txHost.tx,
      `UPDATE content.entitlements SET status = 'revoked', revoked_at = now() WHERE id = $1`,
      [id],
    );
  }

  /** Activates an entitlement, with the transaction's next statement. */
  async activate(id: string): Promise<void> {
    await sendWithNext(
      this.txHost.tx,
      `UPDATE content.entitlements SET status = 'active', activated_at = now() WHERE id = $1`,
      [id],
    );
  }

  /** The status of each of a buyer's entitlements, by plan. */
  async statusesOf(userId: string): Promise<Map<string, EntitlementStatus[]>> {
    const rows = await this.txHost.tx.query<Array<{ plan_id: string; statuses: EntitlementStatus[] }>>(
      `SELECT plan_id, array_agg(status ORDER BY status) AS statuses
         FROM content.entitlements WHERE user_id = $1 AND plan_id IS NOT NULL
        GROUP BY plan_id ORDER BY plan_id`,
      [userId],
    );
    return new Map(rows.map((row) => [row.plan_id, row.statuses]));
  }

  async license(planId: string): Promise<License | undefined> {
    const [row] = await this.txHost.tx.query<Array<{ everywhere: boolean; countries: string[] }>>(
      `SELECT l.everywhere, coalesce(array_agg(c.country) FILTER (WHERE c.country IS NOT NULL), '{}') AS countries
         FROM content.plan_licenses l LEFT JOIN content.plan_countries c ON c.plan_id = l.plan_id
        WHERE l.plan_id = $1
        GROUP BY l.plan_id, l.everywhere`,
      [planId],
    );
    return row;
  }
}
