import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { authConfig, type AuthConfig } from './auth.config';

/** The row of `auth.deployment_secrets` that signs buyers' tokens. */
const ROW = 'buyer-tokens';

/**
 * The secret that signs buyers' tokens: AUTH_TOKEN_SECRET when it is set, otherwise the
 * deployment's own, made at random by the first process that needs it and kept in Postgres, where
 * every replica finds it (ADR 0066). Two replicas that start at once both insert, one wins, and
 * both read the winner's. Read once per process; a failure (Postgres away) is tried again next time.
 */
@Injectable()
export class DeploymentSecret {
  private secret?: Promise<string>;

  constructor(
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly dataSource: DataSource,
  ) {}

  /** Whether the secret is the deployment's (AUTH_TOKEN_SECRET is not set). */
  get isTheDeployments(): boolean {
    return this.config.tokenSecret === undefined;
  }

  get(): Promise<string> {
    if (this.config.tokenSecret !== undefined) return Promise.resolve(this.config.tokenSecret);
    this.secret ??= this.readOrMake().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  private async readOrMake(): Promise<string> {
    // Two statements, not one: the read must see a row another process committed while this
    // insert waited on it, which a single statement's snapshot would not.
    await this.dataSource.query(
      `INSERT INTO auth.deployment_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [ROW, randomBytes(32).toString('base64url')],
    );
    const [row] = await this.dataSource.query<Array<{ value: string }>>(
      `SELECT value FROM auth.deployment_secrets WHERE name = $1`,
      [ROW],
    );
    return row.value;
  }
}
