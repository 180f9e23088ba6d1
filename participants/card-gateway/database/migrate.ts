import { Client, escapeIdentifier } from 'pg';

/**
 * The service's schema, in the order it grew. Each runs once, in a transaction of its own, and is
 * recorded in `card_gateway.migrations`; a later change is a new entry, never an edit of one.
 */
const MIGRATIONS: ReadonlyArray<{ id: string; sql: string }> = [
  {
    id: '0001-operations-and-tombstones',
    sql: `
      CREATE TABLE card_gateway.operations (
        operation text NOT NULL,
        idempotency_key text NOT NULL,
        response jsonb NOT NULL,
        approved boolean NOT NULL,
        reference text,
        authorization_id text,
        payment_method text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_card_gateway_operations PRIMARY KEY (operation, idempotency_key)
      );
      CREATE INDEX ix_card_gateway_operations_reference ON card_gateway.operations (reference);
      CREATE INDEX ix_card_gateway_operations_authorization ON card_gateway.operations (authorization_id);
      CREATE TABLE card_gateway.tombstones (
        authorization_key text NOT NULL,
        void_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_card_gateway_tombstones PRIMARY KEY (authorization_key)
      );`,
  },
];

/** Postgres' codes for "database does not exist" and "database already exists". */
const MISSING_DATABASE = '3D000';
const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the service's database when it is missing, then applies the migrations it has not yet,
 * under a lock, so that two instances starting at once apply each one once. Returns their ids.
 */
export async function migrateCardGateway(databaseUrl: string): Promise<string[]> {
  const client = await connectCreatingDatabase(databaseUrl);
  try {
    await client.query(`SELECT pg_advisory_lock(hashtextextended('card_gateway:migrations', 0))`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS card_gateway`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS card_gateway.migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM card_gateway.migrations`);
    const done = new Set(rows.map((row) => row.id));
    const applied: string[] = [];
    for (const migration of MIGRATIONS.filter(({ id }) => !done.has(id))) {
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(`INSERT INTO card_gateway.migrations (id) VALUES ($1)`, [migration.id]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(migration.id);
    }
    return applied;
  } finally {
    await client.end();
  }
}

async function connectCreatingDatabase(databaseUrl: string): Promise<Client> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'card-gateway-migrate' });
  try {
    await client.connect();
    return client;
  } catch (error) {
    if ((error as { code?: unknown }).code !== MISSING_DATABASE) throw error;
  }
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const admin = new Client({ connectionString: maintenance.toString() });
  await admin.connect();
  try {
    await admin.query(
      `CREATE DATABASE ${escapeIdentifier(decodeURIComponent(new URL(databaseUrl).pathname.slice(1)))}`,
    );
  } catch (error) {
    // Another instance created it first.
    if ((error as { code?: unknown }).code !== DUPLICATE_DATABASE) throw error;
  } finally {
    await admin.end();
  }
  const created = new Client({ connectionString: databaseUrl, application_name: 'card-gateway-migrate' });
  await created.connect();
  return created;
}
