import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAuthSchema1795970006000 implements MigrationInterface {
  name = 'CreateAuthSchema1795970006000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SCHEMA IF NOT EXISTS auth`);
    // The deployment's own secrets, made by the first process that needs one (ADR 0066): every
    // replica reads the same row, so tokens one signs the others accept.
    await db.query(`
      CREATE TABLE auth.deployment_secrets (
        name       text        NOT NULL,
        value      text        NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_auth_deployment_secrets PRIMARY KEY (name)
      )`);
    // The operator token made by the app (ADMIN_TOKEN=generate), kept as its SHA-256 only: the
    // token itself is shown once, in the log of the process that made it (ADR 0067).
    await db.query(`
      CREATE TABLE auth.operator_token (
        one        boolean     NOT NULL DEFAULT true,
        sha256     bytea       NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_auth_operator_token PRIMARY KEY (one),
        CONSTRAINT ck_auth_operator_token_one CHECK (one)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP SCHEMA auth CASCADE`);
  }
}
