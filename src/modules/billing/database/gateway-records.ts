import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { databaseConfig, type DatabaseConfig } from '../../../config/database.config';
import { AppPgClient, type AppPgClientConfig } from '../../../infra/database/app-pg-client';
import { sendWithNextOn } from '../../../infra/database/one-write';

/** Held until the transaction ends; sent with the statement after it, which runs once it is granted. */
const LOCK = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';

/** One request the gateway responded to, as it keeps it: the response is given again for the same key. */
export interface GatewayRequestRecord {
  operation: string;
  idempotencyKey: string;
  response: { approved: boolean };
  /** The merchant's reference (the checkout) the request is filed under. */
  reference: string | null;
  authorizationId: string | null;
}

/** An approved authorization, as the gateway keeps it. */
export interface AuthorizationRecord {
  id: string;
  reference: string | null;
  paymentMethod: string;
}

/**
 * The fake card gateway's memory, `billing.gateway_requests`, written through a small pool of its
 * own, outside the caller's transaction and connections, because a real gateway's memory does not
 * roll back with ours and does not wait for our pool.
 *
 * It talks to Postgres through the app's client (AppPgClient), so that a call costs the app's
 * process about what a real gateway's one HTTP request would, not a round trip per statement: a
 * transaction's BEGIN and each lock go in one write with the statement after them, the remembered
 * response with the COMMIT, and each statement is prepared once per connection (unless
 * DATABASE_PREPARED_STATEMENTS says not to).
 */
@Injectable()
export class GatewayRecords implements OnApplicationShutdown {
  private readonly pool: Pool;

  constructor(@Inject(databaseConfig.KEY) config: DatabaseConfig) {
    const options: PoolConfig & AppPgClientConfig = {
      // Postgres itself, not a pooler in front of it: the caller's transaction holds one of the
      // pooler's server connections while it waits for this call.
      connectionString: config.directUrl,
      max: 4,
      application_name: 'fake-card-gateway',
      Client: AppPgClient,
      prepareStatements: config.preparedStatements,
    };
    this.pool = new Pool(options);
    this.pool.on('error', () => undefined); // an idle connection lost with Postgres: the next call opens another
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

  /** Runs `work` in a transaction of a connection of the pool: committed if it returns, rolled back if it throws. */
  async transaction<T>(work: (records: GatewayTransaction) => Promise<T>): Promise<T> {
    const db = await this.pool.connect();
    // Its connection lost while checked out (the server gone): the query in flight fails with it,
    // and the client's own 'error' event must not go unheard (an unhandled one ends the process).
    let lost: Error | undefined;
    const onLost = (error: Error) => (lost = error);
    db.on('error', onLost);
    try {
      await db.query('BEGIN');
      const result = await work(new GatewayTransaction(db));
      await db.query('COMMIT');
      return result;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      db.removeListener('error', onLost);
      db.release(lost);
    }
  }
}

/** The gateway's memory within one transaction of GatewayRecords. */
export class GatewayTransaction {
  constructor(private readonly db: PoolClient) {}

  /** Takes a lock on `key` until the transaction ends, without a round trip of its own. */
  async lock(key: string): Promise<void> {
    await sendWithNextOn(this.db, LOCK, [key]);
  }

  /** The response kept for (operation, key), if any. */
  async responseTo<R>(operation: string, key: string): Promise<R | undefined> {
    const { rows } = await this.db.query<{ response: R }>(
      `SELECT response FROM billing.gateway_requests WHERE operation = $1 AND idempotency_key = $2`,
      [operation, key],
    );
    return rows[0]?.response;
  }

  /** Keeps a request's response; sent with the COMMIT, whose failure its own failure becomes. */
  async remember(request: GatewayRequestRecord): Promise<void> {
    await sendWithNextOn(
      this.db,
      `INSERT INTO billing.gateway_requests
         (operation, idempotency_key, response, reference, authorization_id, approved)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        request.operation,
        request.idempotencyKey,
        JSON.stringify(request.response),
        request.reference,
        request.authorizationId,
        request.response.approved,
      ],
    );
  }

  /** The approved authorization of that id, or requested with that idempotency key. */
  async approvedAuthorization(target: {
    authorizationId: string | null;
    authorizationKey: string | null;
  }): Promise<AuthorizationRecord | undefined> {
    const { rows } = await this.db.query<{ id: string; reference: string | null; payment_method: string }>(
      `SELECT authorization_id AS id, reference, response->>'paymentMethod' AS payment_method
         FROM billing.gateway_requests
        WHERE operation = 'authorize' AND approved
          AND (authorization_id = $1 OR idempotency_key = $2)`,
      [target.authorizationId, target.authorizationKey],
    );
    return rows[0] && { id: rows[0].id, reference: rows[0].reference, paymentMethod: rows[0].payment_method };
  }

  /** Every operation filed under a merchant's reference, oldest first. */
  async filedUnder(
    reference: string,
  ): Promise<Array<{ operation: string; approved: boolean; authorizationId: string | null }>> {
    const { rows } = await this.db.query<{ operation: string; approved: boolean; authorization_id: string | null }>(
      `SELECT operation, approved, authorization_id FROM billing.gateway_requests
        WHERE reference = $1 ORDER BY created_at, operation`,
      [reference],
    );
    return rows.map((row) => ({
      operation: row.operation,
      approved: row.approved,
      authorizationId: row.authorization_id,
    }));
  }

  /** The operations but the authorization itself already approved on an authorization. */
  async approvedOperationsOn(authorizationId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ operation: string }>(
      `SELECT operation FROM billing.gateway_requests WHERE authorization_id = $1 AND approved AND operation <> 'authorize'`,
      [authorizationId],
    );
    return rows.map((row) => row.operation);
  }
}
