import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ChargeEachStallOnce1795970007000 implements MigrationInterface {
  name = 'ChargeEachStallOnce1795970007000';

  async up(db: QueryRunner): Promise<void> {
    // A crash names the stall it charges (the job, and which of its stalls): charging it again,
    // after a death that came before the job's data said it was charged, records nothing.
    await db.query(`ALTER TABLE outbox.delivery_attempts ADD COLUMN stall text`);
    await db.query(
      `CREATE UNIQUE INDEX ux_outbox_delivery_attempts_stall ON outbox.delivery_attempts (message_id, consumer, stall)
        WHERE stall IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX outbox.ux_outbox_delivery_attempts_stall`);
    await db.query(`ALTER TABLE outbox.delivery_attempts DROP COLUMN stall`);
  }
}
