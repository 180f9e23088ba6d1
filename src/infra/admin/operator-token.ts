import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { appConfig, type AppConfig } from '../../config/app.config';
import { databaseConfig, type DatabaseConfig } from '../../config/database.config';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** How long a process goes on with the hash it read: a new token reaches every replica within it. */
const HASH_READ_EVERY_MS = 5_000;

/** A token the app makes: recognisable (in a log, by a secret scanner) by its prefix. */
export const newOperatorToken = (): string => `op_${randomBytes(32).toString('base64url')}`;

/**
 * Stores `token` (its SHA-256) as the deployment's operator token: only when there is none yet, or
 * in place of the one there is (`replace`). Answers whether it was stored.
 */
export async function storeOperatorToken(dataSource: DataSource, token: string, replace: boolean): Promise<boolean> {
  const rows = await dataSource.query<unknown[]>(
    `INSERT INTO auth.operator_token (sha256) VALUES ($1)
       ON CONFLICT (one) DO ${replace ? 'UPDATE SET sha256 = EXCLUDED.sha256, created_at = clock_timestamp()' : 'NOTHING'}
     RETURNING created_at`,
    [sha256(token)],
  );
  return rows.length > 0;
}

/**
 * The operator's token (ADMIN_TOKEN): none, the one configured, or the deployment's own
 * (`generate`, ADR 0067): made at random by the first process that starts, kept in Postgres as
 * its SHA-256 only, and written once to that process's log. `npm run operator-token` makes a new
 * one. Every comparison takes the same time whatever the guess.
 */
@Injectable()
export class OperatorToken implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OperatorToken');
  private readonly configured?: Buffer;
  private stored?: { hash: Buffer | undefined; readAt: number };
  private reading?: Promise<Buffer | undefined>;
  private stopped = false;

  constructor(
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
  ) {
    if (config.adminToken.kind === 'configured') this.configured = sha256(config.adminToken.token);
  }

  /** Whether the operator's routes exist at all. */
  get enabled(): boolean {
    return this.config.adminToken.kind !== 'none';
  }

  /** Whether `token` is the operator's. Throws while Postgres cannot say (a 503). */
  async matches(token: string): Promise<boolean> {
    const expected = this.configured ?? (this.enabled ? await this.storedHash() : undefined);
    return expected !== undefined && timingSafeEqual(sha256(token), expected);
  }

  onApplicationBootstrap(): void {
    if (this.config.adminToken.kind === 'generated' && this.config.roles.has('api')) {
      void this.connector.ready.then(() => this.makeFirst());
    }
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }

  private async storedHash(): Promise<Buffer | undefined> {
    if (this.stored && Date.now() - this.stored.readAt < HASH_READ_EVERY_MS) return this.stored.hash;
    this.reading ??= this.dataSource
      .query<Array<{ sha256: Buffer }>>(`SELECT sha256 FROM auth.operator_token`)
      .then(([row]) => {
        this.stored = { hash: row?.sha256, readAt: Date.now() };
        return row?.sha256;
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** The first start of a deployment makes its token; replicas starting with it find it made. */
  private async makeFirst(): Promise<void> {
    while (!this.stopped) {
      try {
        const token = newOperatorToken();
        if (await storeOperatorToken(this.dataSource, token, false)) {
          this.logger.warn(
            `Operator token, made now and shown only this once (Postgres keeps its hash): ${token} ` +
              '(send it as Authorization: Bearer; `npm run operator-token` makes a new one)',
          );
        }
        return;
      } catch (error) {
        this.logger.warn(`Cannot make the operator token yet: ${describeError(error)}`);
        await sleep(this.database.retryMs);
      }
    }
  }
}
