import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateMailHandovers1795970004400 implements MigrationInterface {
  name = 'CreateMailHandovers1795970004400';

  async up(db: QueryRunner): Promise<void> {
    // Every email the mail transport handed to the outside world, written by the transport
    // itself outside the sending handler's transaction: a handler that rolls back after sending
    // still leaves its row, so a second email shows as a second row. No unique key, on purpose.
    await db.query(`
      CREATE TABLE notifications.mail_handovers (
        id          bigint      GENERATED ALWAYS AS IDENTITY,
        message_id  text        NOT NULL,
        checkout_id uuid        NOT NULL,
        template    text        NOT NULL,
        recipient   text        NOT NULL,
        transport   text        NOT NULL,
        handed_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_notifications_mail_handovers PRIMARY KEY (id)
      )`);
    await db.query(
      `CREATE INDEX ix_notifications_mail_handovers_checkout ON notifications.mail_handovers (checkout_id, template)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE notifications.mail_handovers`);
  }
}
