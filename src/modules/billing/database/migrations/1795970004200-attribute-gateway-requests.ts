import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AttributeGatewayRequests1795970004200 implements MigrationInterface {
  name = 'AttributeGatewayRequests1795970004200';

  async up(db: QueryRunner): Promise<void> {
    // What the gateway knows about each operation, as a payment provider reports it: the
    // merchant's reference (the checkout), the authorization it concerns, and whether it was
    // approved. The invariants count money from here, not from our own payments table.
    await db.query(`
      ALTER TABLE billing.gateway_requests
        ADD COLUMN reference        text,
        ADD COLUMN authorization_id text,
        ADD COLUMN approved         boolean`);
    await db.query(`
      UPDATE billing.gateway_requests
         SET reference = split_part(idempotency_key, ':', 1),
             authorization_id = response->>'authorizationId',
             approved = (response->>'approved')::boolean`);
    await db.query(`ALTER TABLE billing.gateway_requests ALTER COLUMN approved SET NOT NULL`);
    await db.query(`CREATE INDEX ix_billing_gateway_requests_reference ON billing.gateway_requests (reference)`);
    await db.query(
      `CREATE INDEX ix_billing_gateway_requests_authorization ON billing.gateway_requests (authorization_id)`,
    );

    // Which checkout's process a payment belongs to, so that what happens to it later (a refund)
    // shows on that checkout's timeline.
    await db.query(`ALTER TABLE billing.payments ADD COLUMN correlation_id text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE billing.payments DROP COLUMN correlation_id`);
    await db.query(`DROP INDEX billing.ix_billing_gateway_requests_authorization`);
    await db.query(`DROP INDEX billing.ix_billing_gateway_requests_reference`);
    await db.query(
      `ALTER TABLE billing.gateway_requests DROP COLUMN reference, DROP COLUMN authorization_id, DROP COLUMN approved`,
    );
  }
}
