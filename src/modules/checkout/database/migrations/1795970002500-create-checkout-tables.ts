import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCheckoutTables1795970002500 implements MigrationInterface {
  name = 'CreateCheckoutTables1795970002500';

  async up(db: QueryRunner): Promise<void> {
    // The status read model of every checkout, whichever style coordinates it.
    await db.query(`
      CREATE TABLE checkout.checkouts (
        id             uuid        NOT NULL,
        user_id        uuid        NOT NULL,
        plan_id        text        NOT NULL,
        payment_method text        NOT NULL,
        mode           text        NOT NULL,
        status         text        NOT NULL DEFAULT 'PENDING',
        step           text        NOT NULL,
        failure_reason text,
        correlation_id text        NOT NULL,
        created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
        completed_at   timestamptz,
        CONSTRAINT pk_checkout_checkouts PRIMARY KEY (id),
        CONSTRAINT ck_checkout_checkouts_mode CHECK (mode IN ('choreography', 'orchestration')),
        CONSTRAINT ck_checkout_checkouts_status
          CHECK (status IN ('PENDING', 'COMPLETED', 'REJECTED', 'FAILED', 'INTERVENTION'))
      )`);
    await db.query(`CREATE INDEX ix_checkout_checkouts_created ON checkout.checkouts (created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX ix_checkout_checkouts_status ON checkout.checkouts (status, created_at DESC)`);

    // Edge idempotency: the first answer to each Idempotency-Key, written with the checkout.
    await db.query(`
      CREATE TABLE checkout.idempotency_keys (
        key          text        NOT NULL,
        request_hash text        NOT NULL,
        checkout_id  uuid        NOT NULL,
        response     jsonb       NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_checkout_idempotency_keys PRIMARY KEY (key),
        CONSTRAINT fk_checkout_idempotency_keys_checkout FOREIGN KEY (checkout_id) REFERENCES checkout.checkouts (id)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE checkout.idempotency_keys, checkout.checkouts`);
  }
}
