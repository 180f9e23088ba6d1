import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddSagaBackoff1795970003600 implements MigrationInterface {
  name = 'AddSagaBackoff1795970003600';

  async up(db: QueryRunner): Promise<void> {
    // A saga whose last send failed waits for its deadline before sending again.
    await db.query(`ALTER TABLE checkout.sagas ADD COLUMN backing_off boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE checkout.sagas DROP COLUMN backing_off`);
  }
}
