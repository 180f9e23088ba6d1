import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOutboxDeployment1795970002000 implements MigrationInterface {
  name = 'CreateOutboxDeployment1795970002000';

  async up(db: QueryRunner): Promise<void> {
    // One row: the id of this deployment's database, which names its queues in Redis by default,
    // so that two deployments sharing a Redis never take each other's jobs.
    await db.query(`
      CREATE TABLE outbox.deployment (
        id         uuid        NOT NULL DEFAULT gen_random_uuid(),
        one        boolean     NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_outbox_deployment PRIMARY KEY (id),
        CONSTRAINT ux_outbox_deployment_one UNIQUE (one),
        CONSTRAINT ck_outbox_deployment_one CHECK (one)
      )`);
    await db.query(`INSERT INTO outbox.deployment DEFAULT VALUES`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE outbox.deployment');
  }
}
