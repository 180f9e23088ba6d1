import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOutboxConsumers1795970004000 implements MigrationInterface {
  name = 'CreateOutboxConsumers1795970004000';

  async up(db: QueryRunner): Promise<void> {
    // Every consumer that a running version of the app has, registered by its processes at boot and
    // kept fresh while they run: relays route, and the sweep judges delivery, by this catalog, so
    // that a version that lacks a consumer (during a rolling deploy) never drops its messages.
    await db.query(`
      CREATE TABLE outbox.consumers (
        consumer      text        NOT NULL,
        queue         text        NOT NULL,
        types         text[]      NOT NULL,
        "where"       jsonb       NOT NULL DEFAULT '{}',
        registered_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        seen_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_outbox_consumers PRIMARY KEY (consumer)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE outbox.consumers');
  }
}
