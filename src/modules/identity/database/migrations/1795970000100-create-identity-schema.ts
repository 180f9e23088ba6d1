import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateIdentitySchema1795970000100 implements MigrationInterface {
  name = 'CreateIdentitySchema1795970000100';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE SCHEMA IF NOT EXISTS identity');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP SCHEMA IF EXISTS identity CASCADE');
  }
}
