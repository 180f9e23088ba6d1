import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DataSource } from 'typeorm';
import { sendWithNext } from '../../../infra/database/one-write';

/** A key's first response, as stored, and whether it is past its time to live. */
export interface StoredResponse<R> {
  request_hash: string;
  response: R;
  expired: boolean;
}

/** The Idempotency-Keys of started checkouts, each with its caller's scope and its first response. */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Takes the key's lock for the rest of the transaction, waiting for it up to `waitMs` (then
   * Postgres refuses with lock_not_available, and the statement it rode with fails with that
   * error). No round trip of its own: it goes with the transaction's next statement, the subquery
   * setting the wait before the lock is asked for. The bound stays for the rest of this short
   * transaction, whose other statements write rows nobody else can hold.
   */
  async lock(scope: string, key: string, waitMs: number): Promise<void> {
    await sendWithNext(
      this.txHost.tx,
      `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))
         FROM (SELECT set_config('lock_timeout', $2, true)) AS bounded`,
      [`checkout.idempotency:${scope}:${key}`, String(waitMs)],
    );
  }

  /** The key's first response, if any, and whether it is older than `ttlHours`. */
  async find<R>(scope: string, key: string, ttlHours: number): Promise<StoredResponse<R> | undefined> {
    const [stored] = await this.txHost.tx.query<Array<StoredResponse<R>>>(
      `SELECT request_hash, response, created_at <= now() - make_interval(hours => $3) AS expired
         FROM checkout.idempotency_keys WHERE scope = $1 AND key = $2`,
      [scope, key, ttlHours],
    );
    return stored;
  }

  async delete(scope: string, key: string): Promise<void> {
    await this.txHost.tx.query(`DELETE FROM checkout.idempotency_keys WHERE scope = $1 AND key = $2`, [scope, key]);
  }

  /** Stores the key's first response: nothing reads it in this transaction, so it goes with the COMMIT. */
  async insert(row: {
    scope: string;
    key: string;
    requestHash: string;
    checkoutId: string;
    response: object;
  }): Promise<void> {
    await sendWithNext(
      this.txHost.tx,
      `INSERT INTO checkout.idempotency_keys (scope, key, request_hash, checkout_id, response)
       VALUES ($1, $2, $3, $4, $5)`,
      [row.scope, row.key, row.requestHash, row.checkoutId, JSON.stringify(row.response)],
    );
  }

  /** Deletes up to `batch` keys older than `ttlHours`, outside any transaction; how many went. */
  async deleteExpired(ttlHours: number, batch: number): Promise<number> {
    const [, deleted] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM checkout.idempotency_keys WHERE (scope, key) IN (
         SELECT scope, key FROM checkout.idempotency_keys
          WHERE created_at <= now() - make_interval(hours => $1) LIMIT ${batch})`,
      [ttlHours],
    );
    return deleted;
  }
}
