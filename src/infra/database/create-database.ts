import { Client, escapeIdentifier } from 'pg';

/** Postgres' code for "database does not exist". */
const INVALID_CATALOG_NAME = '3D000';

export function isMissingDatabase(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === INVALID_CATALOG_NAME;
}

/**
 * Creates the database that `url` names, through the server's maintenance database. A newcomer's
 * local Postgres then needs no manual step; with docker compose the database already exists.
 */
export async function createDatabase(url: string): Promise<string> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${escapeIdentifier(name)}`);
  } catch (error) {
    // Another replica got there first.
    if ((error as { code?: unknown }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
  return name;
}
