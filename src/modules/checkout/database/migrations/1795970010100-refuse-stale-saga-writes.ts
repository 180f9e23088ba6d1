import type { MigrationInterface, QueryRunner } from 'typeorm';

export class RefuseStaleSagaWrites1795970010100 implements MigrationInterface {
  name = 'RefuseStaleSagaWrites1795970010100';

  async up(db: QueryRunner): Promise<void> {
    // Raised by a saga's write that finds another version than the one read: the write rides with
    // its transaction's COMMIT, and only an error stops that COMMIT from keeping the rest.
    await db.query(
      `CREATE FUNCTION checkout.refuse_stale_saga_write(saga_id uuid, read_version integer) RETURNS integer
         LANGUAGE plpgsql AS $$
       BEGIN
         RAISE EXCEPTION 'Saga % changed since version % was read: the write is refused', saga_id, read_version
           USING ERRCODE = 'SG409';
       END $$`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION checkout.refuse_stale_saga_write(uuid, integer)`);
  }
}
