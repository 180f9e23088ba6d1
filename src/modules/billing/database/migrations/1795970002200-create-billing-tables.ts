import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateBillingTables1795970002200 implements MigrationInterface {
  name = 'CreateBillingTables1795970002200';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE billing.plans (
        id          text    NOT NULL,
        name        text    NOT NULL,
        price_cents integer NOT NULL,
        currency    char(3) NOT NULL,
        CONSTRAINT pk_billing_plans PRIMARY KEY (id),
        CONSTRAINT ck_billing_plans_price CHECK (price_cents > 0)
      )`);
    await db.query(`
      INSERT INTO billing.plans (id, name, price_cents, currency) VALUES
        ('basic', 'Basic', 990, 'USD'),
        ('premium', 'Premium', 2990, 'USD')`);

    // What a choreographed checkout told billing, in two halves that may arrive in either order.
    await db.query(`
      CREATE TABLE billing.payment_intents (
        checkout_id       uuid        NOT NULL,
        user_id           uuid,
        plan_id           text,
        payment_method    text,
        requested_at      timestamptz,
        buyer_verified_at timestamptz,
        CONSTRAINT pk_billing_payment_intents PRIMARY KEY (checkout_id)
      )`);

    // One payment per checkout. A tombstone is a void that came before any authorization.
    await db.query(`
      CREATE TABLE billing.payments (
        id                       uuid        NOT NULL,
        checkout_id              uuid        NOT NULL,
        user_id                  uuid,
        plan_id                  text,
        amount_cents             integer,
        currency                 char(3),
        payment_method           text,
        status                   text        NOT NULL,
        tombstone                boolean     NOT NULL DEFAULT false,
        idempotency_key          text        NOT NULL,
        gateway_authorization_id text,
        decline_reason           text,
        authorized_at            timestamptz,
        captured_at              timestamptz,
        voided_at                timestamptz,
        refunded_at              timestamptz,
        created_at               timestamptz NOT NULL DEFAULT now(),
        updated_at               timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_billing_payments PRIMARY KEY (id),
        CONSTRAINT ux_billing_payments_checkout UNIQUE (checkout_id),
        CONSTRAINT ck_billing_payments_status
          CHECK (status IN ('authorized', 'declined', 'voided', 'captured', 'refunded'))
      )`);

    // The fake card gateway's own memory: each (operation, idempotency key) answers once, and
    // the same answer forever after, as a real gateway's idempotency keys do.
    await db.query(`
      CREATE TABLE billing.gateway_requests (
        operation       text        NOT NULL,
        idempotency_key text        NOT NULL,
        response        jsonb       NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_billing_gateway_requests PRIMARY KEY (operation, idempotency_key)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE billing.gateway_requests, billing.payments, billing.payment_intents, billing.plans`);
  }
}
