import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateContentSchema1795970000300 implements MigrationInterface {
  name = 'CreateContentSchema1795970000300';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE SCHEMA IF NOT EXISTS content');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP SCHEMA IF EXISTS content CASCADE');
  }
}
