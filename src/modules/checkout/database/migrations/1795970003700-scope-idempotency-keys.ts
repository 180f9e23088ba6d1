import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ScopeIdempotencyKeys1795970003700 implements MigrationInterface {
  name = 'ScopeIdempotencyKeys1795970003700';

  async up(db: QueryRunner): Promise<void> {
    // A key belongs to whoever sent it (`buyer:<user id>` or `operator`): two buyers' same key
    // names two requests. Keys stored before had no owner; the buyer of their checkout is the
    // best guess.
    await db.query(`ALTER TABLE checkout.idempotency_keys ADD COLUMN scope text`);
    await db.query(`
      UPDATE checkout.idempotency_keys k SET scope = 'buyer:' || c.user_id
        FROM checkout.checkouts c WHERE c.id = k.checkout_id`);
    await db.query(`ALTER TABLE checkout.idempotency_keys ALTER COLUMN scope SET NOT NULL`);
    await db.query(`ALTER TABLE checkout.idempotency_keys DROP CONSTRAINT pk_checkout_idempotency_keys`);
    await db.query(
      `ALTER TABLE checkout.idempotency_keys ADD CONSTRAINT pk_checkout_idempotency_keys PRIMARY KEY (scope, key)`,
    );
    // Keys expire (CHECKOUT_IDEMPOTENCY_TTL_HOURS); the purge finds the old ones by age.
    await db.query(`CREATE INDEX ix_checkout_idempotency_keys_created ON checkout.idempotency_keys (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX checkout.ix_checkout_idempotency_keys_created`);
    await db.query(`ALTER TABLE checkout.idempotency_keys DROP CONSTRAINT pk_checkout_idempotency_keys`);
    await db.query(
      `ALTER TABLE checkout.idempotency_keys ADD CONSTRAINT pk_checkout_idempotency_keys PRIMARY KEY (key)`,
    );
    await db.query(`ALTER TABLE checkout.idempotency_keys DROP COLUMN scope`);
  }
}
