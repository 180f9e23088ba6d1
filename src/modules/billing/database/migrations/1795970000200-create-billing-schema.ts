import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateBillingSchema1795970000200 implements MigrationInterface {
  name = 'CreateBillingSchema1795970000200';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE SCHEMA IF NOT EXISTS billing');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP SCHEMA IF EXISTS billing CASCADE');
  }
}
