import { Client } from 'pg';
import { escapeIdentifier } from 'pg';
import IORedis from 'ioredis';
import { stopRunParticipants } from './run-participants';
import { runDatabasePrefix, runId, TEST_DATABASE_URL, TEST_REDIS_URL, withDatabaseName } from './test-env';

/** Removes whatever this run's tests left behind: the participants, their databases and their Redis keys. */
export default async function globalTeardown(): Promise<void> {
  await stopRunParticipants();
  await dropRunDatabases();
  await unlinkRunKeys();
}

async function dropRunDatabases(): Promise<void> {
  const client = new Client({ connectionString: withDatabaseName(TEST_DATABASE_URL, 'postgres') });
  await client.connect();
  try {
    const prefix = runDatabasePrefix();
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(datname)} WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}

/** This run's Redis keys. */
export async function unlinkRunKeys(): Promise<void> {
  const redis = new IORedis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      // A queue's keys start with its hash tag, `{<prefix>:<queue>}`.
      const [next, keys] = await redis.scan(cursor, 'MATCH', `{t${runId()}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
