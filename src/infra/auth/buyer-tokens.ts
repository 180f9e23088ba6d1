import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { authConfig, type AuthConfig } from './auth.config';
import { DeploymentSecret } from './deployment-secret';

const ISSUER = 'checkout-outbox-saga';
const AUDIENCE = 'checkout-buyer';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A buyer's bearer token: a JWT (HS256) whose subject is the user id, signed with AUTH_TOKEN_SECRET
 * or the deployment's own secret (ADRs 0046, 0066). Verifying pins the algorithm, issuer and
 * audience, and checks the expiry: whatever else a client sends is not a buyer.
 */
@Injectable()
export class BuyerTokens {
  constructor(
    private readonly jwt: JwtService,
    private readonly secret: DeploymentSecret,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
  ) {}

  async issue(userId: string): Promise<string> {
    return this.jwt.signAsync(
      {},
      {
        secret: await this.secret.get(),
        subject: userId,
        issuer: ISSUER,
        audience: AUDIENCE,
        expiresIn: this.config.tokenTtlSeconds,
        algorithm: 'HS256',
      },
    );
  }

  /** The buyer's user id, or undefined for anything that is not a token this app signed and still valid. */
  async verify(token: string): Promise<string | undefined> {
    // Outside the try: Postgres being away is a 503, not a bad token.
    const secret = await this.secret.get();
    try {
      const { sub } = await this.jwt.verifyAsync<{ sub?: unknown }>(token, {
        secret,
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      return typeof sub === 'string' && UUID.test(sub) ? sub : undefined;
    } catch {
      return undefined;
    }
  }
}
