import type { MigrationInterface, QueryRunner } from 'typeorm';

export class IndexCheckoutsByBuyer1795970006500 implements MigrationInterface {
  name = 'IndexCheckoutsByBuyer1795970006500';

  async up(db: QueryRunner): Promise<void> {
    // A buyer's listing (GET /checkouts), newest first from its cursor: without it, every page
    // walks the whole table's newest first for one buyer's rows. IF NOT EXISTS: on a large table
    // an operator may build it beforehand without blocking writes (CREATE INDEX CONCURRENTLY,
    // same name; docs/scaling.md), and this then has nothing to do.
    await db.query(
      `CREATE INDEX IF NOT EXISTS ix_checkout_checkouts_user ON checkout.checkouts (user_id, created_at DESC, id DESC)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX checkout.ix_checkout_checkouts_user`);
  }
}
