import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSagaTables1795970003500 implements MigrationInterface {
  name = 'CreateSagaTables1795970003500';

  async up(db: QueryRunner): Promise<void> {
    // One orchestrated checkout's saga. Everything about it is here, nothing only in memory; every
    // write checks and bumps the version, so a paused instance cannot overwrite a newer state.
    await db.query(`
      CREATE TABLE checkout.sagas (
        id                uuid        NOT NULL,
        status            text        NOT NULL,
        current_step      text        NOT NULL,
        undoing           boolean     NOT NULL DEFAULT false,
        attempts          integer     NOT NULL,
        to_undo           text[]      NOT NULL DEFAULT '{}',
        outcome           text,
        reason            text,
        intervention      text,
        interrupted_while text,
        next_deadline     timestamptz,
        version           integer     NOT NULL,
        created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_checkout_sagas PRIMARY KEY (id),
        CONSTRAINT fk_checkout_sagas_checkout FOREIGN KEY (id) REFERENCES checkout.checkouts (id),
        CONSTRAINT ck_checkout_sagas_status
          CHECK (status IN ('RUNNING', 'COMPENSATING', 'COMPLETED', 'COMPENSATED', 'INTERVENTION'))
      )`);
    await db.query(
      `CREATE INDEX ix_checkout_sagas_deadline ON checkout.sagas (next_deadline) WHERE next_deadline IS NOT NULL`,
    );
    await db.query(`CREATE INDEX ix_checkout_sagas_status ON checkout.sagas (status, updated_at DESC)`);

    // One row per step that was ever sent.
    await db.query(`
      CREATE TABLE checkout.saga_steps (
        saga_id               uuid        NOT NULL,
        step                  text        NOT NULL,
        status                text        NOT NULL,
        attempts              integer     NOT NULL,
        compensation_attempts integer     NOT NULL,
        uncertain             boolean     NOT NULL,
        result                jsonb,
        last_error            text,
        started_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_checkout_saga_steps PRIMARY KEY (saga_id, step),
        CONSTRAINT fk_checkout_saga_steps_saga FOREIGN KEY (saga_id) REFERENCES checkout.sagas (id),
        CONSTRAINT ck_checkout_saga_steps_status
          CHECK (status IN ('STARTED', 'DONE', 'FAILED', 'COMPENSATING', 'COMPENSATED'))
      )`);

    // What the saga learned and did, transition by transition: its part of a checkout's timeline.
    await db.query(`
      CREATE TABLE checkout.saga_log (
        id          bigint      GENERATED ALWAYS AS IDENTITY,
        saga_id     uuid        NOT NULL,
        at          timestamptz NOT NULL DEFAULT clock_timestamp(),
        input       text        NOT NULL,
        from_status text        NOT NULL,
        to_status   text        NOT NULL,
        step        text        NOT NULL,
        command     text,
        attempt     integer,
        detail      jsonb,
        CONSTRAINT pk_checkout_saga_log PRIMARY KEY (id)
      )`);
    await db.query(`CREATE INDEX ix_checkout_saga_log_saga ON checkout.saga_log (saga_id, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE checkout.saga_log, checkout.saga_steps, checkout.sagas`);
  }
}
