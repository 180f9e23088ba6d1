import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddSagaTraceContext1795970003800 implements MigrationInterface {
  name = 'AddSagaTraceContext1795970003800';

  async up(db: QueryRunner): Promise<void> {
    // The W3C trace context of the last unit of work that moved the saga: what a deadline (a
    // timeout, a retry after backoff) sends continues the checkout's trace from there.
    await db.query(`ALTER TABLE checkout.sagas ADD COLUMN trace_context jsonb NOT NULL DEFAULT '{}'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE checkout.sagas DROP COLUMN trace_context`);
  }
}
