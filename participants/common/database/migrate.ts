import { Client, escapeIdentifier } from 'pg';

/** One step of a service's schema: run once, in a transaction of its own; a later change is a new one, never an edit. */
export interface Migration {
  id: string;
  sql: string;
}

/** Postgres' codes for "database does not exist" and "database already exists". */
const MISSING_DATABASE = '3D000';
const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the service's database when it is missing, then applies the migrations it has not yet
 * to its schema (recorded in `<schema>.migrations`), under a lock, so that two instances starting
 * at once apply each one once. Returns their ids.
 */
export async function migrateSchema(
  databaseUrl: string,
  schema: string,
  migrations: ReadonlyArray<Migration>,
): Promise<string[]> {
  const name = `${schema.replaceAll('_', '-')}-migrate`;
  const client = await connectCreatingDatabase(databaseUrl, name);
  const table = `${escapeIdentifier(schema)}.migrations`;
  try {
    await client.query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [`${schema}:migrations`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM ${table}`);
    const done = new Set(rows.map((row) => row.id));
    const applied: string[] = [];
    for (const migration of migrations.filter(({ id }) => !done.has(id))) {
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${table} (id) VALUES ($1)`, [migration.id]);
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

async function connectCreatingDatabase(databaseUrl: string, applicationName: string): Promise<Client> {
  const client = new Client({ connectionString: databaseUrl, application_name: applicationName });
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
  const created = new Client({ connectionString: databaseUrl, application_name: applicationName });
  await created.connect();
  return created;
}
