import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddProvisionalEntitlements1795970005300 implements MigrationInterface {
  name = 'AddProvisionalEntitlements1795970005300';

  async up(db: QueryRunner): Promise<void> {
    // A grant is provisional until the checkout's money is captured (ADR 0051). Rows granted
    // before this migration were active from the start, and stay so.
    await db.query(`ALTER TABLE content.entitlements DROP CONSTRAINT ck_content_entitlements_status`);
    await db.query(`
      ALTER TABLE content.entitlements
        ADD CONSTRAINT ck_content_entitlements_status CHECK (status IN ('provisional', 'active', 'revoked')),
        ADD COLUMN activated_at timestamptz`);
    await db.query(`UPDATE content.entitlements SET activated_at = granted_at WHERE status = 'active'`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Going back, a provisional grant is what the earlier code made of every grant: active.
    await db.query(`UPDATE content.entitlements SET status = 'active' WHERE status = 'provisional'`);
    await db.query(`ALTER TABLE content.entitlements DROP CONSTRAINT ck_content_entitlements_status`);
    await db.query(`
      ALTER TABLE content.entitlements
        DROP COLUMN activated_at,
        ADD CONSTRAINT ck_content_entitlements_status CHECK (status IN ('active', 'revoked'))`);
  }
}
