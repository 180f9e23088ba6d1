import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateNotificationsSchema1795970000400 implements MigrationInterface {
  name = 'CreateNotificationsSchema1795970000400';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE SCHEMA IF NOT EXISTS notifications');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP SCHEMA IF EXISTS notifications CASCADE');
  }
}
