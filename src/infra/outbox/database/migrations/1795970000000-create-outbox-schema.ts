import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOutboxSchema1795970000000 implements MigrationInterface {
  name = 'CreateOutboxSchema1795970000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE SCHEMA IF NOT EXISTS outbox');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP SCHEMA IF EXISTS outbox CASCADE');
  }
}
