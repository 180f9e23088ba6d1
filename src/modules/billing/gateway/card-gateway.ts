import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { databaseConfig, type DatabaseConfig } from '../../../config/database.config';
import type { PaymentMethod } from '../../checkout/contracts';

export type GatewayAnswer = { approved: true; authorizationId: string } | { approved: false; reason: string };

/**
 * A card gateway as payment providers offer them: every call carries an idempotency key, and the
 * same key always gets the same answer without a second effect.
 */
export abstract class CardGateway {
  abstract authorize(
    key: string,
    paymentMethod: PaymentMethod,
    amountCents: number,
    currency: string,
  ): Promise<GatewayAnswer>;
  abstract capture(key: string, authorizationId: string): Promise<GatewayAnswer>;
  abstract void(key: string, authorizationId: string): Promise<GatewayAnswer>;
  abstract refund(key: string, authorizationId: string): Promise<GatewayAnswer>;
}

/**
 * A fake gateway that understands the test card tokens: `pm_card_ok` authorizes and captures,
 * `pm_card_declined` is declined at authorization, `pm_card_capture_declined` authorizes and is
 * declined at capture. Its memory of keys lives in `billing.gateway_requests`, written through a
 * small pool of its own, outside the caller's transaction and connections, because a real
 * gateway's memory does not roll back with ours and does not wait for our pool.
 */
@Injectable()
export class FakeCardGateway extends CardGateway implements OnApplicationShutdown {
  private readonly pool: Pool;

  constructor(@Inject(databaseConfig.KEY) config: DatabaseConfig) {
    super();
    this.pool = new Pool({ connectionString: config.url, max: 4, application_name: 'fake-card-gateway' });
    this.pool.on('error', () => undefined); // an idle connection lost with Postgres: the next call opens another
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

  authorize(key: string, paymentMethod: PaymentMethod, amountCents: number, currency: string): Promise<GatewayAnswer> {
    return this.once('authorize', key, () =>
      paymentMethod === 'pm_card_declined'
        ? { approved: false, reason: 'card-declined' }
        : { approved: true, authorizationId: `auth_${randomUUID()}`, paymentMethod, amountCents, currency },
    );
  }

  async capture(key: string, authorizationId: string): Promise<GatewayAnswer> {
    const method = await this.methodOf(authorizationId);
    return this.once('capture', key, () =>
      method === 'pm_card_capture_declined'
        ? { approved: false, reason: 'capture-declined' }
        : method
          ? { approved: true, authorizationId }
          : { approved: false, reason: 'unknown-authorization' },
    );
  }

  void(key: string, authorizationId: string): Promise<GatewayAnswer> {
    return this.once('void', key, () => ({ approved: true, authorizationId }));
  }

  refund(key: string, authorizationId: string): Promise<GatewayAnswer> {
    return this.once('refund', key, () => ({ approved: true, authorizationId }));
  }

  /** The first answer to (operation, key) is kept; every later call gets it back. */
  private async once(
    operation: string,
    key: string,
    answer: () => GatewayAnswer & Record<string, unknown>,
  ): Promise<GatewayAnswer> {
    const { rows: fresh } = await this.pool.query<{ response: GatewayAnswer }>(
      `INSERT INTO billing.gateway_requests (operation, idempotency_key, response) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING response`,
      [operation, key, JSON.stringify(answer())],
    );
    if (fresh[0]) return fresh[0].response;
    const { rows: stored } = await this.pool.query<{ response: GatewayAnswer }>(
      `SELECT response FROM billing.gateway_requests WHERE operation = $1 AND idempotency_key = $2`,
      [operation, key],
    );
    return stored[0].response;
  }

  private async methodOf(authorizationId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ method: string }>(
      `SELECT response->>'paymentMethod' AS method FROM billing.gateway_requests
        WHERE operation = 'authorize' AND response->>'authorizationId' = $1`,
      [authorizationId],
    );
    return rows[0]?.method;
  }
}
