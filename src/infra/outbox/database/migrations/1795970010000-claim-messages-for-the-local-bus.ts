import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ClaimMessagesForTheLocalBus1795970010000 implements MigrationInterface {
  name = 'ClaimMessagesForTheLocalBus1795970010000';

  async up(db: QueryRunner): Promise<void> {
    // A message whose consumers all run in the process that wrote it is delivered by that process
    // after its commit (ADR 0096): written published, and claimed by the process (outbox.processes).
    // Until every consumer has an inbox row, a claim of a process that is gone is the sweep's to
    // take over at once; a live process's, after OUTBOX_REDELIVER_AFTER_MS as any published row.
    await db.query(`ALTER TABLE outbox.messages ADD COLUMN claimed_by uuid`);
    await db.query(
      `CREATE INDEX ix_outbox_messages_claimed ON outbox.messages (claimed_by)
         WHERE claimed_by IS NOT NULL AND delivered_at IS NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX outbox.ix_outbox_messages_claimed');
    await db.query('ALTER TABLE outbox.messages DROP COLUMN claimed_by');
  }
}
