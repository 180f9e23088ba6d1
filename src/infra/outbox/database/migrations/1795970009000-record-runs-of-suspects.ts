import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RecordRunsOfSuspects1795970009000 implements MigrationInterface {
  name = 'RecordRunsOfSuspects1795970009000';

  async up(db: QueryRunner): Promise<void> {
    // Every process that consumes, and when it was last seen: a process unseen for its lease is gone.
    await db.query(`
      CREATE TABLE outbox.processes (
        id         uuid        NOT NULL,
        host       text        NOT NULL,
        pid        integer     NOT NULL,
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        seen_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_outbox_processes PRIMARY KEY (id)
      )`);
    // A delivery that runs alone writes that it began, committed before its handler, and its
    // transaction deletes the row: a row left behind by a process that is gone is a crash.
    await db.query(`
      CREATE TABLE outbox.runs (
        id         uuid        NOT NULL,
        message_id uuid        NOT NULL,
        consumer   text        NOT NULL,
        process_id uuid        NOT NULL,
        began_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_outbox_runs PRIMARY KEY (id)
      )`);
    await db.query(`CREATE INDEX ix_outbox_runs_delivery ON outbox.runs (message_id, consumer)`);
    await db.query(`CREATE INDEX ix_outbox_runs_process ON outbox.runs (process_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE outbox.runs');
    await db.query('DROP TABLE outbox.processes');
  }
}
