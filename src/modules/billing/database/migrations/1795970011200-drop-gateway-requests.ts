import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DropGatewayRequests1795970011200 implements MigrationInterface {
  name = 'DropGatewayRequests1795970011200';

  async up(db: QueryRunner): Promise<void> {
    // The fake card gateway inside the app kept its memory here. The gateway is a service of its
    // own now, with its own storage, and what it did is known only by asking it (ADR 0110): no
    // code reads or writes this table, and a checker that read it would count nothing.
    await db.query(`DROP TABLE IF EXISTS billing.gateway_requests`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE billing.gateway_requests (
        operation        text        NOT NULL,
        idempotency_key  text        NOT NULL,
        response         jsonb       NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        reference        text,
        authorization_id text,
        approved         boolean     NOT NULL,
        CONSTRAINT pk_billing_gateway_requests PRIMARY KEY (operation, idempotency_key)
      )`);
    await db.query(`CREATE INDEX ix_billing_gateway_requests_reference ON billing.gateway_requests (reference)`);
    await db.query(
      `CREATE INDEX ix_billing_gateway_requests_authorization ON billing.gateway_requests (authorization_id)`,
    );
  }
}
