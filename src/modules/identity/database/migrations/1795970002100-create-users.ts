import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUsers1795970002100 implements MigrationInterface {
  name = 'CreateUsers1795970002100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE identity.users (
        id         uuid        NOT NULL DEFAULT gen_random_uuid(),
        email      text        NOT NULL,
        name       text        NOT NULL,
        country    char(2)     NOT NULL,
        status     text        NOT NULL DEFAULT 'active',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_identity_users PRIMARY KEY (id),
        CONSTRAINT ck_identity_users_status CHECK (status IN ('active', 'blocked'))
      )`);
    await db.query(`CREATE UNIQUE INDEX ux_identity_users_email ON identity.users (lower(email))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE identity.users`);
  }
}
