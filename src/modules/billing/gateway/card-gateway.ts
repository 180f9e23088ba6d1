import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { databaseConfig, type DatabaseConfig } from '../../../config/database.config';
import { AppPgClient, type AppPgClientConfig, sendWithNextOn } from '../../../infra/database/app-pg-client';
import type { PaymentMethod } from '../../checkout/contracts';

export type GatewayAnswer = { approved: true; authorizationId: string } | { approved: false; reason: string };

/** The gateway has no authorization by that id or key: nothing was ever held under it. */
export const UNKNOWN_AUTHORIZATION = 'unknown-authorization';

export interface AuthorizationRequest {
  paymentMethod: PaymentMethod;
  amountCents: number;
  currency: string;
  /** The merchant's reference (the checkout): every later operation on it is filed under it. */
  reference: string;
}

/**
 * Which authorization a void is about: its id, or (when our record of it may never have
 * committed) the idempotency key it was requested with, as gateways allow cancelling by the
 * merchant's own reference after a timeout.
 */
export type VoidTarget = { authorizationId: string } | { authorizationKey: string };

/**
 * A card gateway as payment providers offer them: every call carries an idempotency key, and the
 * same key always gets the same answer without a second effect. An adapter to a real one makes its
 * calls through callOutside('card-gateway', ...), so that a gateway that does not answer spends
 * attempts rather than passing for our outage (ADR 0093); the fake below talks to our own Postgres
 * only, whose failures are ours.
 */
export abstract class CardGateway {
  abstract authorize(key: string, request: AuthorizationRequest): Promise<GatewayAnswer>;
  abstract capture(key: string, authorizationId: string): Promise<GatewayAnswer>;
  abstract void(key: string, target: VoidTarget): Promise<GatewayAnswer>;
  abstract refund(key: string, authorizationId: string): Promise<GatewayAnswer>;
}

type Operation = 'authorize' | 'capture' | 'void' | 'refund';

/** Held until the transaction ends; sent with the statement after it, which runs once it is granted. */
const LOCK = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';

/** A decision of the gateway; one about an authorization it does not know is not remembered. */
interface Decision {
  answer: GatewayAnswer & Record<string, unknown>;
  authorizationId: string | null;
  reference: string | null;
  remembered: boolean;
}

/**
 * A fake gateway that understands the test card tokens: `pm_card_ok` authorizes and captures,
 * `pm_card_declined` is declined at authorization, `pm_card_capture_declined` authorizes and is
 * declined at capture. An authorization is captured or voided once, and only a captured one is
 * refunded. Its memory lives in `billing.gateway_requests`, written through a small pool of its
 * own, outside the caller's transaction and connections, because a real gateway's memory does
 * not roll back with ours and does not wait for our pool. Each operation is filed under the
 * authorization it concerns and the merchant's reference, which is what the invariants count.
 *
 * It talks to Postgres through the app's client (AppPgClient), so that a call costs the app's
 * process about what a real gateway's one HTTP request would, not a round trip per statement: a
 * transaction's BEGIN and each lock go in one write with the statement after them, the remembered
 * answer with the COMMIT, and each statement is prepared once per connection (unless
 * DATABASE_PREPARED_STATEMENTS says not to). An authorization costs two round trips, a capture,
 * a void or a refund four.
 */
@Injectable()
export class FakeCardGateway extends CardGateway implements OnApplicationShutdown {
  private readonly pool: Pool;

  constructor(@Inject(databaseConfig.KEY) config: DatabaseConfig) {
    super();
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

  authorize(key: string, request: AuthorizationRequest): Promise<GatewayAnswer> {
    return this.once('authorize', key, async () => {
      const approved = request.paymentMethod !== 'pm_card_declined';
      const authorizationId = approved ? `auth_${randomUUID()}` : null;
      return {
        answer: approved
          ? { approved, authorizationId: authorizationId!, ...request }
          : { approved, reason: 'card-declined' },
        authorizationId,
        reference: request.reference,
        remembered: true,
      };
    });
  }

  capture(key: string, authorizationId: string): Promise<GatewayAnswer> {
    return this.once('capture', key, async (db) => {
      const authorization = await this.lockAuthorization(db, { authorizationId });
      if (!authorization) return unknown(authorizationId);
      const refusal = authorization.done.includes('void')
        ? 'authorization-voided'
        : authorization.done.includes('capture')
          ? 'already-captured'
          : authorization.paymentMethod === 'pm_card_capture_declined'
            ? 'capture-declined'
            : undefined;
      return decided(authorization, refusal);
    });
  }

  void(key: string, target: VoidTarget): Promise<GatewayAnswer> {
    return this.once('void', key, async (db) => {
      const authorization = await this.lockAuthorization(db, target);
      if (!authorization) return unknown('authorizationId' in target ? target.authorizationId : null);
      return decided(authorization, authorization.done.includes('capture') ? 'already-captured' : undefined);
    });
  }

  refund(key: string, authorizationId: string): Promise<GatewayAnswer> {
    return this.once('refund', key, async (db) => {
      const authorization = await this.lockAuthorization(db, { authorizationId });
      if (!authorization) return unknown(authorizationId);
      return decided(authorization, authorization.done.includes('capture') ? undefined : 'not-captured');
    });
  }

  /**
   * The first answer to (operation, key) is kept; every later call gets it back. Calls with one
   * key, and operations on one authorization, take their turn.
   */
  private async once(
    operation: Operation,
    key: string,
    decide: (db: PoolClient) => Promise<Decision>,
  ): Promise<GatewayAnswer> {
    const db = await this.pool.connect();
    // Its connection lost while checked out (the server gone): the query in flight fails with it,
    // and the client's own 'error' event must not go unheard (an unhandled one ends the process).
    let lost: Error | undefined;
    const onLost = (error: Error) => (lost = error);
    db.on('error', onLost);
    try {
      await db.query('BEGIN');
      await sendWithNextOn(db, LOCK, [`gateway:${operation}:${key}`]);
      const { rows: stored } = await db.query<{ response: GatewayAnswer }>(
        `SELECT response FROM billing.gateway_requests WHERE operation = $1 AND idempotency_key = $2`,
        [operation, key],
      );
      const decision = stored[0] ? undefined : await decide(db);
      if (decision?.remembered) {
        // Its failure fails the COMMIT it rides with.
        await sendWithNextOn(
          db,
          `INSERT INTO billing.gateway_requests
             (operation, idempotency_key, response, reference, authorization_id, approved)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [
            operation,
            key,
            JSON.stringify(decision.answer),
            decision.reference,
            decision.authorizationId,
            decision.answer.approved,
          ],
        );
      }
      await db.query('COMMIT');
      return stored[0]?.response ?? decision!.answer;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      db.removeListener('error', onLost);
      db.release(lost);
    }
  }

  /** An approved authorization, locked for this call, with the operations already approved on it. */
  private async lockAuthorization(
    db: PoolClient,
    target: VoidTarget,
  ): Promise<{ id: string; reference: string | null; paymentMethod: string; done: string[] } | undefined> {
    const { rows } = await db.query<{ id: string; reference: string | null; payment_method: string }>(
      `SELECT authorization_id AS id, reference, response->>'paymentMethod' AS payment_method
         FROM billing.gateway_requests
        WHERE operation = 'authorize' AND approved
          AND (authorization_id = $1 OR idempotency_key = $2)`,
      [
        'authorizationId' in target ? target.authorizationId : null,
        'authorizationKey' in target ? target.authorizationKey : null,
      ],
    );
    if (!rows[0]) return undefined;
    await sendWithNextOn(db, LOCK, [`gateway:authorization:${rows[0].id}`]);
    const { rows: done } = await db.query<{ operation: string }>(
      `SELECT operation FROM billing.gateway_requests WHERE authorization_id = $1 AND approved AND operation <> 'authorize'`,
      [rows[0].id],
    );
    return {
      id: rows[0].id,
      reference: rows[0].reference,
      paymentMethod: rows[0].payment_method,
      done: done.map((row) => row.operation),
    };
  }
}

const unknown = (authorizationId: string | null): Decision => ({
  answer: { approved: false, reason: UNKNOWN_AUTHORIZATION },
  authorizationId,
  reference: null,
  remembered: false,
});

const decided = (authorization: { id: string; reference: string | null }, refusal: string | undefined): Decision => ({
  answer: refusal ? { approved: false, reason: refusal } : { approved: true, authorizationId: authorization.id },
  authorizationId: authorization.id,
  reference: authorization.reference,
  remembered: true,
});
