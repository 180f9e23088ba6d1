import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCheckoutSchema1795970000500 implements MigrationInterface {
  name = 'CreateCheckoutSchema1795970000500';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE SCHEMA IF NOT EXISTS checkout');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP SCHEMA IF EXISTS checkout CASCADE');
  }
}
