import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateConsumerVersions1795970009500 implements MigrationInterface {
  name = 'CreateConsumerVersions1795970009500';

  async up(db: QueryRunner): Promise<void> {
    // A consumer's routes per version (a fingerprint of its queue, types and header filter), so that
    // every relay and sweep routes to what any running version of it takes (ADR 0089).
    // outbox.consumers stays as it is: processes of earlier versions, still running while this one
    // rolls out, register there with ON CONFLICT (consumer), which needs its key.
    await db.query(`
      CREATE TABLE outbox.consumer_versions (
        consumer      text        NOT NULL,
        version       text        NOT NULL,
        queue         text        NOT NULL,
        types         text[]      NOT NULL,
        "where"       jsonb       NOT NULL DEFAULT '{}',
        registered_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        seen_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_outbox_consumer_versions PRIMARY KEY (consumer, version)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE outbox.consumer_versions');
  }
}
