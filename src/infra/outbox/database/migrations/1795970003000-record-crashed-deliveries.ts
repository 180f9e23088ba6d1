import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RecordCrashedDeliveries1795970003000 implements MigrationInterface {
  name = 'RecordCrashedDeliveries1795970003000';

  async up(db: QueryRunner): Promise<void> {
    // A delivery whose worker died (or lost it) before it ended: counted, so that a message that
    // keeps killing its worker is dead-lettered instead of redelivered forever.
    await db.query(`ALTER TABLE outbox.delivery_attempts DROP CONSTRAINT ck_outbox_delivery_attempts_outcome`);
    await db.query(
      `ALTER TABLE outbox.delivery_attempts ADD CONSTRAINT ck_outbox_delivery_attempts_outcome
         CHECK (outcome IN ('failed', 'duplicate', 'dead', 'crashed'))`,
    );
    await db.query(
      `CREATE INDEX ix_outbox_delivery_attempts_delivery ON outbox.delivery_attempts (message_id, consumer)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX outbox.ix_outbox_delivery_attempts_delivery`);
    await db.query(`DELETE FROM outbox.delivery_attempts WHERE outcome = 'crashed'`);
    await db.query(`ALTER TABLE outbox.delivery_attempts DROP CONSTRAINT ck_outbox_delivery_attempts_outcome`);
    await db.query(
      `ALTER TABLE outbox.delivery_attempts ADD CONSTRAINT ck_outbox_delivery_attempts_outcome
         CHECK (outcome IN ('failed', 'duplicate', 'dead'))`,
    );
  }
}
