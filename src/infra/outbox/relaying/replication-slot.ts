/** What the logical relay reads with (ADR 0079): a publication of the outbox's inserts, and one slot. */

/** The publication of outbox.messages' inserts, its id column alone (the relay reads the rest as it marks them). */
export const PUBLICATION = 'outbox_relay';

/** The slot of this deployment's database: OUTBOX_SLOT_NAME, or outbox_relay_ and the database's name. */
export function slotNameFor(configured: string | undefined, databaseUrl: string): string {
  if (configured) return configured;
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  return `outbox_relay_${database.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
}

/** An LSN (`16/B374D848`) as a number of bytes. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The LSN one byte before this one, in Postgres' notation. */
export function lsnBefore(lsn: string): string {
  const value = lsnValue(lsn) - 1n;
  return `${(value >> 32n).toString(16).toUpperCase()}/${(value & 0xffffffffn).toString(16).toUpperCase()}`;
}

interface Queryable {
  query<T>(sql: string): Promise<T>;
}

/**
 * What the logical relay lacks on this server, one phrase per missing thing (empty: nothing):
 * wal_level=logical, a slot and a WAL sender to spare, and the REPLICATION attribute (or superuser)
 * for the user the app connects as, which a replication connection and creating a slot need.
 */
export async function logicalRelayProblems(db: Queryable): Promise<string[]> {
  const [row] = await db.query<
    Array<{ wal_level: string; slots: number; senders: number; user: string; replication: boolean | null }>
  >(
    `SELECT current_setting('wal_level') AS wal_level,
            current_setting('max_replication_slots')::int AS slots,
            current_setting('max_wal_senders')::int AS senders,
            current_user AS user,
            (SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user) AS replication`,
  );
  const problems: string[] = [];
  if (row.wal_level !== 'logical') {
    problems.push(`wal_level=logical (it is ${row.wal_level}: set it in postgresql.conf and restart Postgres)`);
  }
  if (row.slots < 1) problems.push('max_replication_slots of 1 or more (it is 0)');
  if (row.senders < 1) problems.push('max_wal_senders of 1 or more (it is 0)');
  if (!row.replication) {
    problems.push(`the REPLICATION attribute for ${row.user} (ALTER ROLE "${row.user}" REPLICATION)`);
  }
  return problems;
}
