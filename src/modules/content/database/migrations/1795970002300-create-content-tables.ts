import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateContentTables1795970002300 implements MigrationInterface {
  name = 'CreateContentTables1795970002300';

  async up(db: QueryRunner): Promise<void> {
    // Where each plan may be sold: everywhere, or only in the listed countries.
    await db.query(`
      CREATE TABLE content.plan_licenses (
        plan_id    text    NOT NULL,
        everywhere boolean NOT NULL DEFAULT false,
        CONSTRAINT pk_content_plan_licenses PRIMARY KEY (plan_id)
      )`);
    await db.query(`
      CREATE TABLE content.plan_countries (
        plan_id text    NOT NULL,
        country char(2) NOT NULL,
        CONSTRAINT pk_content_plan_countries PRIMARY KEY (plan_id, country),
        CONSTRAINT fk_content_plan_countries_plan FOREIGN KEY (plan_id) REFERENCES content.plan_licenses (plan_id)
      )`);
    await db.query(
      `INSERT INTO content.plan_licenses (plan_id, everywhere) VALUES ('basic', true), ('premium', false)`,
    );
    await db.query(
      `INSERT INTO content.plan_countries (plan_id, country) VALUES ('premium', 'BR'), ('premium', 'PT'), ('premium', 'US')`,
    );

    // One entitlement per checkout. A tombstone is a revoke that came before any grant.
    await db.query(`
      CREATE TABLE content.entitlements (
        id              uuid        NOT NULL,
        checkout_id     uuid        NOT NULL,
        user_id         uuid,
        plan_id         text,
        status          text        NOT NULL,
        tombstone       boolean     NOT NULL DEFAULT false,
        idempotency_key text        NOT NULL,
        granted_at      timestamptz,
        revoked_at      timestamptz,
        created_at      timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_content_entitlements PRIMARY KEY (id),
        CONSTRAINT ux_content_entitlements_checkout UNIQUE (checkout_id),
        CONSTRAINT ck_content_entitlements_status CHECK (status IN ('active', 'revoked'))
      )`);
    await db.query(`CREATE INDEX ix_content_entitlements_user_plan ON content.entitlements (user_id, plan_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE content.entitlements, content.plan_countries, content.plan_licenses`);
  }
}
