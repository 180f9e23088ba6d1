import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateEmails1795970002400 implements MigrationInterface {
  name = 'CreateEmails1795970002400';

  async up(db: QueryRunner): Promise<void> {
    // An email is sent once per checkout and template, whatever is redelivered or retried.
    await db.query(`
      CREATE TABLE notifications.emails (
        id          uuid        NOT NULL,
        checkout_id uuid        NOT NULL,
        template    text        NOT NULL,
        recipient   text        NOT NULL,
        subject     text        NOT NULL,
        body        text        NOT NULL,
        sent_at     timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_notifications_emails PRIMARY KEY (id),
        CONSTRAINT ux_notifications_emails_checkout_template UNIQUE (checkout_id, template)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE notifications.emails`);
  }
}
