import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOutboxTables1795970001000 implements MigrationInterface {
  name = 'CreateOutboxTables1795970001000';

  async up(db: QueryRunner): Promise<void> {
    // Every event and command, written in the same transaction as the change it announces.
    await db.query(`
      CREATE TABLE outbox.messages (
        id             uuid        NOT NULL,
        kind           text        NOT NULL,
        type           text        NOT NULL,
        aggregate_id   text        NOT NULL,
        payload        jsonb       NOT NULL,
        correlation_id text        NOT NULL,
        causation_id   uuid,
        headers        jsonb       NOT NULL DEFAULT '{}',
        created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
        published_at   timestamptz,
        delivered_at   timestamptz,
        CONSTRAINT pk_outbox_messages PRIMARY KEY (id),
        CONSTRAINT ck_outbox_messages_kind CHECK (kind IN ('event', 'command')),
        CONSTRAINT ck_outbox_messages_type CHECK (type ~ '^[a-z]+\\.[a-z0-9-]+\\.v[0-9]+$')
      )`);
    // The relay's queue: only the rows not yet pushed, so it stays small however big the table grows.
    await db.query(
      `CREATE INDEX ix_outbox_messages_unpublished ON outbox.messages (created_at) WHERE published_at IS NULL`,
    );
    // The redelivery sweep's queue: pushed, but not yet seen by every consumer.
    await db.query(
      `CREATE INDEX ix_outbox_messages_undelivered ON outbox.messages (published_at)
         WHERE published_at IS NOT NULL AND delivered_at IS NULL`,
    );
    await db.query(`CREATE INDEX ix_outbox_messages_correlation ON outbox.messages (correlation_id)`);
    // Housekeeping's order of purging.
    await db.query(
      `CREATE INDEX ix_outbox_messages_delivered ON outbox.messages (delivered_at) WHERE delivered_at IS NOT NULL`,
    );

    // One row per (message, consumer) that took effect, written in the consumer's own transaction.
    await db.query(`
      CREATE TABLE outbox.inbox (
        message_id     uuid        NOT NULL,
        consumer       text        NOT NULL,
        correlation_id text        NOT NULL,
        attempt        integer     NOT NULL,
        handled_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_outbox_inbox PRIMARY KEY (message_id, consumer)
      )`);
    await db.query(`CREATE INDEX ix_outbox_inbox_handled_at ON outbox.inbox (handled_at)`);
    await db.query(`CREATE INDEX ix_outbox_inbox_correlation ON outbox.inbox (correlation_id)`);

    // Attempts that did not take effect: failures, duplicates, the last one before a dead letter.
    await db.query(`
      CREATE TABLE outbox.delivery_attempts (
        id             bigint      GENERATED ALWAYS AS IDENTITY,
        message_id     uuid        NOT NULL,
        consumer       text        NOT NULL,
        correlation_id text        NOT NULL,
        attempt        integer     NOT NULL,
        outcome        text        NOT NULL,
        error          text,
        at             timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_outbox_delivery_attempts PRIMARY KEY (id),
        CONSTRAINT ck_outbox_delivery_attempts_outcome CHECK (outcome IN ('failed', 'duplicate', 'dead'))
      )`);
    await db.query(`CREATE INDEX ix_outbox_delivery_attempts_correlation ON outbox.delivery_attempts (correlation_id)`);
    await db.query(`CREATE INDEX ix_outbox_delivery_attempts_at ON outbox.delivery_attempts (at)`);

    // Messages a consumer gave up on. They keep a full copy, so they can be redriven after the
    // outbox row is purged, and they are never deleted: discarding one is recorded.
    await db.query(`
      CREATE TABLE outbox.dead_letters (
        id              uuid        NOT NULL,
        message_id      uuid        NOT NULL,
        consumer        text        NOT NULL,
        type            text        NOT NULL,
        correlation_id  text        NOT NULL,
        message         jsonb       NOT NULL,
        error           text        NOT NULL,
        attempts        integer     NOT NULL,
        first_failed_at timestamptz NOT NULL,
        last_failed_at  timestamptz NOT NULL,
        status          text        NOT NULL DEFAULT 'dead',
        resolved_at     timestamptz,
        CONSTRAINT pk_outbox_dead_letters PRIMARY KEY (id),
        CONSTRAINT ck_outbox_dead_letters_status CHECK (status IN ('dead', 'redriven', 'discarded'))
      )`);
    await db.query(
      `CREATE UNIQUE INDEX ux_outbox_dead_letters_open ON outbox.dead_letters (message_id, consumer) WHERE status = 'dead'`,
    );
    await db.query(`CREATE INDEX ix_outbox_dead_letters_correlation ON outbox.dead_letters (correlation_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE outbox.dead_letters, outbox.delivery_attempts, outbox.inbox, outbox.messages');
  }
}
