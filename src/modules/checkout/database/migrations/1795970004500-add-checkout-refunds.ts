import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddCheckoutRefunds1795970004500 implements MigrationInterface {
  name = 'AddCheckoutRefunds1795970004500';

  async up(db: QueryRunner): Promise<void> {
    // A completed checkout whose money was given back stays COMPLETED, and says when it was refunded.
    await db.query(`ALTER TABLE checkout.checkouts ADD COLUMN refunded_at timestamptz`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE checkout.checkouts DROP COLUMN refunded_at`);
  }
}
