import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddSagaGeneration1795970009700 implements MigrationInterface {
  name = 'AddSagaGeneration1795970009700';

  async up(db: QueryRunner): Promise<void> {
    // Operators' retries of the saga so far: a retry counts the sends again from 1, and the
    // generation tells an answer to a send from before the retry from one to a send after it.
    await db.query(
      `ALTER TABLE checkout.sagas ADD COLUMN generation integer NOT NULL DEFAULT 0
         CONSTRAINT ck_checkout_sagas_generation CHECK (generation >= 0)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE checkout.sagas DROP COLUMN generation`);
  }
}
